import Foundation

/// Encodes `Encodable` types as CBOR (the Codable bridge); the mirror of `CBORDecoder`.
///
/// A `CodingKey` with an `intValue` becomes an integer map key, others text keys;
/// `[String: V]` always uses text keys. `Data` is a byte string, `Date` a tdate (tag 0,
/// UTC, whole seconds), `CBOR` is embedded as is. Output is deterministic (§4.2.1)
/// unless other options are given.
public struct CBOREncoder: Sendable {
    public var options: CBOREncodingOptions
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init(options: CBOREncodingOptions = .deterministic) { self.options = options }

    public func encode<T: Encodable>(_ value: T) throws -> Data {
        try encodeToCBOR(value).encoded(options: options)
    }

    /// The `CBOR` value tree for `value`, before serialization.
    public func encodeToCBOR<T: Encodable>(_ value: T) throws -> CBOR {
        let root = _EncodingNode()
        try _CBOREncoderImpl(node: root, codingPath: [], userInfo: userInfo).encodeValue(value)
        return try root.finish(path: "")
    }
}

/// A value under construction. Containers hand out child nodes, which are filled
/// later (Codable allows a container to be written after its parent moved on).
final class _EncodingNode {
    enum Content {
        case empty
        case value(CBOR)
        case array([_EncodingNode])
        case map([(CBOR, _EncodingNode)])
    }

    var content: Content = .empty

    func finish(path: String) throws -> CBOR {
        switch content {
        case .empty: throw CBORError.unencodable("no value was encoded", path: path)
        case .value(let v): return v
        case .array(let nodes): return .array(try nodes.map { try $0.finish(path: path) })
        case .map(let pairs):
            var entries: [CBORMap.Entry] = []
            entries.reserveCapacity(pairs.count)
            for (k, node) in pairs { entries.append(CBORMap.Entry(key: k, value: try node.finish(path: path))) }
            return .map(CBORMap(entries))
        }
    }
}

struct _CBOREncoderImpl: Encoder {
    let node: _EncodingNode
    let codingPath: [any CodingKey]
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    init(node: _EncodingNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        self.codingPath = codingPath
        self.userInfoStorage = userInfo
    }

    func child(_ key: any CodingKey) -> (_EncodingNode, _CBOREncoderImpl) {
        let n = _EncodingNode()
        return (n, _CBOREncoderImpl(node: n, codingPath: codingPath + [key], userInfo: userInfoStorage))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .map = node.content {} else { node.content = .map([]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleContainer(encoder: self) }

    func set(_ value: CBOR) { node.content = .value(value) }

    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let v as CBOR: set(v)
        case let v as Data: set(.bytes(v))
        case let v as Date: set(TDate(v).cbor)
        case let v as any _CBOREncodableDictionary: try v.encodeCBOR(self)
        default: try value.encode(to: self)
        }
    }

    func append(_ key: CBOR, _ child: _EncodingNode) {
        guard case .map(var pairs) = node.content else { return }
        node.content = .empty  // release the array so the append below does not copy it
        pairs.append((key, child))
        node.content = .map(pairs)
    }

    func append(_ child: _EncodingNode) {
        guard case .array(var nodes) = node.content else { return }
        node.content = .empty
        nodes.append(child)
        node.content = .array(nodes)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: _CBOREncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    func slot(_ key: Key) -> _CBOREncoderImpl {
        let (node, child) = encoder.child(key)
        encoder.append(key.intValue.map { CBOR.int($0) } ?? .text(key.stringValue), node)
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { slot(key).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot(key).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot(key).set(.text(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { slot(key).set(.double(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { slot(key).set(.float(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { slot(key).set(.int(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { slot(key).set(.int(Int(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { slot(key).set(.int(Int(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { slot(key).set(.int(Int(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { slot(key).set(.int(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { slot(key).set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { slot(key).set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { slot(key).set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { slot(key).set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { slot(key).set(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try slot(key).encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    { slot(key).container(keyedBy: keyType) }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        slot(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let (node, child) = encoder.child(_MapKey(stringValue: "super"))
        encoder.append(.text("super"), node)
        return child
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder { slot(key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: _CBOREncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int {
        if case .array(let nodes) = encoder.node.content { return nodes.count }
        return 0
    }

    func slot() -> _CBOREncoderImpl {
        let (node, child) = encoder.child(_IndexKey(intValue: count))
        encoder.append(node)
        return child
    }

    mutating func encodeNil() throws { slot().set(.null) }
    mutating func encode(_ value: Bool) throws { slot().set(.bool(value)) }
    mutating func encode(_ value: String) throws { slot().set(.text(value)) }
    mutating func encode(_ value: Double) throws { slot().set(.double(value)) }
    mutating func encode(_ value: Float) throws { slot().set(.float(value)) }
    mutating func encode(_ value: Int) throws { slot().set(.int(value)) }
    mutating func encode(_ value: Int8) throws { slot().set(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { slot().set(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { slot().set(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { slot().set(.int(value)) }
    mutating func encode(_ value: UInt) throws { slot().set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { slot().set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { slot().set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { slot().set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { slot().set(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try slot().encodeValue(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    { slot().container(keyedBy: keyType) }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { slot().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { slot() }
}

private struct SingleContainer: SingleValueEncodingContainer {
    let encoder: _CBOREncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.set(.null) }
    mutating func encode(_ value: Bool) throws { encoder.set(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.set(.text(value)) }
    mutating func encode(_ value: Double) throws { encoder.set(.double(value)) }
    mutating func encode(_ value: Float) throws { encoder.set(.float(value)) }
    mutating func encode(_ value: Int) throws { encoder.set(.int(value)) }
    mutating func encode(_ value: Int8) throws { encoder.set(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { encoder.set(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { encoder.set(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { encoder.set(.int(value)) }
    mutating func encode(_ value: UInt) throws { encoder.set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { encoder.set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.set(.unsigned(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.set(.unsigned(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value) }
}

/// `[String: V]` encodes with text keys and `[Int: V]` with integer keys (see `CBORDecoder`).
protocol _CBOREncodableDictionary {
    func encodeCBOR(_ encoder: _CBOREncoderImpl) throws
}

extension Dictionary: _CBOREncodableDictionary where Key: Encodable, Value: Encodable {
    func encodeCBOR(_ encoder: _CBOREncoderImpl) throws {
        let keyed: [(CBOR, any CodingKey, Value)]
        switch self {
        case let d as [String: Value]: keyed = d.map { (.text($0.key), _MapKey(stringValue: $0.key), $0.value) }
        case let d as [Int: Value]: keyed = d.map { (.int($0.key), _MapKey(intValue: $0.key), $0.value) }
        case let d as [CBOR: Value]:
            keyed = d.map { ($0.key, _MapKey(stringValue: $0.key.diagnostic()), $0.value) }
        default:
            try encode(to: encoder)
            return
        }
        encoder.node.content = .map([])
        for (key, codingKey, value) in keyed {
            let (node, child) = encoder.child(codingKey)
            encoder.append(key, node)
            try child.encodeValue(value)
        }
    }
}

extension CBOR: Encodable {
    /// Only the CBOR encoder can embed a raw `CBOR` value.
    public func encode(to encoder: any Encoder) throws {
        guard let e = encoder as? _CBOREncoderImpl else {
            throw CBORError.unencodable("CBOR values need CBOREncoder", path: CBORPath.render(encoder.codingPath))
        }
        e.set(self)
    }
}
