import Foundation

/// The `Decoder` behind `CBORDecoder`: reads from an already decoded `CBOR` tree.
struct _CBORDecoderImpl: Decoder {
    let value: CBOR
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    init(value: CBOR, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.value = value
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
    }

    var path: String { CBORPath.render(codingPath) }

    func mismatch(_ expected: String, _ found: CBOR) -> CBORError {
        .typeMismatch(expected: expected, found: found.kindName, path: path, offset: nil)
    }

    func child(_ value: CBOR, _ key: any CodingKey) -> _CBORDecoderImpl {
        _CBORDecoderImpl(value: value, codingPath: codingPath + [key], userInfo: userInfoStorage)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .map(let m) = value else { throw mismatch("map", value) }
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, map: m))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch("array", value) }
        return UnkeyedContainer(decoder: self, elements: a)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    // MARK: Values

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == CBOR.self, let v = value as? T { return v }
        if T.self == Data.self {
            guard case .bytes(let d) = value, let v = d as? T else { throw mismatch("byte string", value) }
            return v
        }
        if T.self == Date.self, let v = try decodeDate() as? T { return v }
        if let dictionary = T.self as? any _CBORDecodableDictionary.Type,
            let v = try dictionary.decodeFromCBOR(self) as? T
        {
            return v
        }
        return try T(from: self)
    }

    func decodeDate() throws -> Date {
        switch value {
        case .tagged(CBORTag.dateTimeString, _): return try TDate(value).date
        case .tagged(CBORTag.epochDateTime, let t):
            if let d = t.doubleValue { return Date(timeIntervalSince1970: d) }
            if let i = t.int64Value { return Date(timeIntervalSince1970: Double(i)) }
            throw mismatch("epoch time", t)
        default: throw mismatch("tdate (tag 0) or epoch time (tag 1)", value)
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_: T.Type) throws -> T {
        switch value {
        case .unsigned(let n):
            guard let v = T(exactly: n) else { throw outOfRange(T.self) }
            return v
        case .negative(let n):
            // -1 - n; fits only if T is signed and n ≤ |T.min| - 1.
            guard T.isSigned, n <= UInt64(T.max) else { throw outOfRange(T.self) }
            return -1 - T(n)
        default:
            throw mismatch("integer", value)
        }
    }

    func outOfRange<T>(_: T.Type) -> CBORError {
        .invalidValue("integer out of range for \(T.self)", path: path, offset: nil)
    }

    func decodeString() throws -> String {
        guard case .text(let s) = value else { throw mismatch("text string", value) }
        return s
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch("boolean", value) }
        return b
    }

    func decodeDouble() throws -> Double {
        guard let d = value.doubleValue else { throw mismatch("float", value) }
        return d
    }

    func decodeFloat() throws -> Float {
        switch value {
        case .half(let f), .float(let f): return f
        case .double(let d):
            guard d.isNaN || Double(Float(d)) == d else {
                throw CBORError.invalidValue("float64 value does not fit Float", path: path, offset: nil)
            }
            return Float(d)
        default: throw mismatch("float", value)
        }
    }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _CBORDecoderImpl
    let map: CBORMap
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        map.entries.compactMap { e in
            switch e.key {
            case .text(let s): return Key(stringValue: s)
            case .unsigned, .negative: return e.key.intValue.flatMap { Key(intValue: $0) }
            default: return nil
            }
        }
    }

    /// Integer-valued coding keys are integer map keys; the rest are text keys.
    static func cborKey(_ key: Key) -> CBOR { key.intValue.map { CBOR.int($0) } ?? .text(key.stringValue) }

    func contains(_ key: Key) -> Bool { map[Self.cborKey(key)] != nil }

    func value(_ key: Key) throws -> CBOR {
        guard let v = map[Self.cborKey(key)] else {
            let name = key.intValue.map(String.init) ?? "\"\(key.stringValue)\""
            throw CBORError.missingKey(name, path: decoder.path, offset: nil)
        }
        return v
    }

    func child(_ key: Key) throws -> _CBORDecoderImpl { decoder.child(try value(key), key) }

    func decodeNil(forKey key: Key) throws -> Bool {
        let v = try value(key)
        return v == .null || v == .undefined
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeDouble() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decodeFloat() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    { try child(key).container(keyedBy: type) }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: _CBORDecoderImpl
    let elements: [CBOR]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: _CBORDecoderImpl, elements: [CBOR]) {
        self.decoder = decoder
        self.elements = elements
    }

    mutating func next() throws -> _CBORDecoderImpl {
        guard currentIndex < elements.count else {
            throw CBORError.invalidValue(
                "array has only \(elements.count) elements", path: decoder.path, offset: nil)
        }
        defer { currentIndex += 1 }
        return decoder.child(elements[currentIndex], _IndexKey(intValue: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < elements.count else { return false }
        let v = elements[currentIndex]
        if v == .null || v == .undefined {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decodeDouble() }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decodeFloat() }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decodeInteger(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { try next().container(keyedBy: type) }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: _CBORDecoderImpl
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null || decoder.value == .undefined }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat() }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}

// MARK: - Dictionaries with their natural key types

/// `[String: V]` and `[Int: V]` decode from text-keyed and integer-keyed maps. Without this,
/// the standard library's dictionary key type turns numeric-looking text keys into integers.
protocol _CBORDecodableDictionary {
    /// nil when the key type is not one handled here (the standard library's coding is used then).
    static func decodeFromCBOR(_ decoder: _CBORDecoderImpl) throws -> Self?
}

extension Dictionary: _CBORDecodableDictionary where Value: Decodable {
    static func decodeFromCBOR(_ decoder: _CBORDecoderImpl) throws -> Self? {
        guard Key.self == String.self || Key.self == Int.self || Key.self == CBOR.self else { return nil }
        guard case .map(let m) = decoder.value else { throw decoder.mismatch("map", decoder.value) }
        var result: [Key: Value] = [:]
        result.reserveCapacity(m.count)
        for entry in m.entries {
            let key: Key
            let codingKey: any CodingKey
            if Key.self == String.self {
                guard case .text(let s) = entry.key, let k = s as? Key else {
                    throw decoder.mismatch("text string map key", entry.key)
                }
                key = k
                codingKey = _MapKey(stringValue: s)
            } else if Key.self == Int.self {
                guard let i = entry.key.intValue, let k = i as? Key else {
                    throw decoder.mismatch("integer map key", entry.key)
                }
                key = k
                codingKey = _MapKey(intValue: i)
            } else {
                guard let k = entry.key as? Key else { return nil }  // Key is CBOR on this branch
                key = k
                codingKey = _MapKey(stringValue: entry.key.diagnostic())
            }
            result[key] = try decoder.child(entry.value, codingKey).decodeValue(Value.self)
        }
        return result
    }
}

// MARK: - CBOR passes through

extension CBOR: Decodable {
    /// Only the CBOR decoder can produce a raw `CBOR` value.
    public init(from decoder: any Decoder) throws {
        guard let d = decoder as? _CBORDecoderImpl else {
            throw CBORError.typeMismatch(
                expected: "CBOR decoder", found: "\(type(of: decoder))", path: CBORPath.render(decoder.codingPath),
                offset: nil)
        }
        self = d.value
    }
}
