import Foundation

/// Decodes `Decodable` types from CBOR (the Codable bridge).
///
/// Map keys: a `CodingKey` with an `intValue` is looked up as an integer key (COSE and
/// ISO 18013-5 use them: `enum CodingKeys: Int, CodingKey { case alg = 1 }`), otherwise
/// as a text key. `[String: V]` always uses text keys and `[Int: V]` integer keys.
/// `Data` is a byte string, `Date` a tdate (tag 0) or epoch time (tag 1), and `CBOR`
/// itself passes through, so a structure can keep any part raw.
///
/// Errors are `CBORError` with the coding path and, when decoding from bytes, the byte
/// offset of the item at fault.
public struct CBORDecoder: Sendable {
    public var options: CBORDecodingOptions
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init(options: CBORDecodingOptions = .strict) { self.options = options }

    public func decode<T: Decodable>(_ type: T.Type, from bytes: some ContiguousBytes) throws -> T {
        let item = try CBOR.decode(bytes, options: options)
        do {
            return try decode(type, from: item)
        } catch let error as CBORError where error.offset == nil {
            // Find where the failing item sits by walking the bytes along the error's path.
            throw error.withOffset(CBORLocator.offset(of: error.pathComponents, in: bytes))
        }
    }

    public func decode<T: Decodable>(_ type: T.Type, from item: CBOR) throws -> T {
        try _CBORDecoderImpl(value: item, codingPath: [], userInfo: userInfo).decodeValue(type)
    }
}

// MARK: - Paths in errors

extension CBORError {
    /// The path carried by a mapping error, split into components.
    var pathComponents: [String] {
        switch self {
        case .typeMismatch(_, _, let p, _), .missingKey(_, let p, _), .invalidValue(_, let p, _):
            return CBORPath.split(p)
        default: return []
        }
    }

    /// Fills in the coding path of an error raised by a value type that did not know it.
    public func located(at codingPath: [any CodingKey]) -> CBORError {
        let p = CBORPath.render(codingPath)
        switch self {
        case .typeMismatch(let e, let f, "", let o): return .typeMismatch(expected: e, found: f, path: p, offset: o)
        case .missingKey(let k, "", let o): return .missingKey(k, path: p, offset: o)
        case .invalidValue(let m, "", let o): return .invalidValue(m, path: p, offset: o)
        default: return self
        }
    }

    /// A mapping error (`typeMismatch`, `missingKey`, `invalidValue`) raised while reading a structure out of the
    /// decoding of `bytes`, with the byte offset of the item its path names (when the path can be followed);
    /// any other error, or one that has an offset already, unchanged. What `CBORDecoder` does for Codable types,
    /// for structures read without Codable.
    public func locatingOffset(in bytes: some ContiguousBytes) -> CBORError {
        guard offset == nil else { return self }
        switch self {
        case .typeMismatch, .missingKey, .invalidValue: return withOffset(CBORLocator.offset(of: pathComponents, in: bytes))
        default: return self
        }
    }

    func withOffset(_ offset: Int?) -> CBORError {
        guard let offset else { return self }
        switch self {
        case .typeMismatch(let e, let f, let p, nil): return .typeMismatch(expected: e, found: f, path: p, offset: offset)
        case .missingKey(let k, let p, nil): return .missingKey(k, path: p, offset: offset)
        case .invalidValue(let m, let p, nil): return .invalidValue(m, path: p, offset: offset)
        default: return self
        }
    }

    /// An error from decoding an embedded item (tag 24) re-expressed at the outer level:
    /// path prefixed, offset moved to the outer bytes where that can be worked out.
    func nested(in decoder: any Decoder) -> CBORError {
        let prefix = CBORPath.render(decoder.codingPath)
        func join(_ p: String) -> String {
            guard !prefix.isEmpty else { return p }
            return p.isEmpty ? prefix + ".<<>>" : prefix + ".<<>>." + p
        }
        switch self {
        case .typeMismatch(let e, let f, let p, _):
            return .typeMismatch(expected: e, found: f, path: join(p), offset: nil)
        case .missingKey(let k, let p, _): return .missingKey(k, path: join(p), offset: nil)
        case .invalidValue(let m, let p, _): return .invalidValue(m, path: join(p), offset: nil)
        default:
            // A malformed embedded item: report it as an invalid value at the tag 24 item.
            return .invalidValue("embedded CBOR (tag 24): \(self)", path: prefix, offset: nil)
        }
    }
}

/// Coding paths rendered as `a.b[2].<<>>.c` (`<<>>` steps into a tag 24 embedded item).
enum CBORPath {
    static func render(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if key is _IndexKey {
                out += "[\(key.intValue ?? 0)]"
            } else {
                if !out.isEmpty { out += "." }
                out += key.intValue.map(String.init) ?? key.stringValue
            }
        }
        return out
    }

    static func split(_ path: String) -> [String] {
        var parts: [String] = []
        for dotted in path.split(separator: ".", omittingEmptySubsequences: true) {
            var rest = Substring(dotted)
            if let bracket = rest.firstIndex(of: "["), bracket != rest.startIndex {
                parts.append(String(rest[..<bracket]))
                rest = rest[bracket...]
            }
            while rest.first == "[", let close = rest.firstIndex(of: "]") {
                parts.append(String(rest[rest.startIndex..<rest.index(after: close)]))
                rest = rest[rest.index(after: close)...]
            }
            if !rest.isEmpty { parts.append(String(rest)) }
        }
        return parts
    }
}

/// Walks encoded bytes along a rendered path to find the offset of the item it names.
enum CBORLocator {
    static func offset(of components: [String], in bytes: some ContiguousBytes) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            var parser = CBORParser(raw, options: CBORDecodingOptions(maxDepth: 512, maxItems: Int.max))
            for component in components {
                if component == "<<>>" {
                    // Step into 24(h'…'): the embedded item starts after the two heads.
                    guard (try? parser.skipTagAndByteStringHeads()) == true else { return nil }
                    continue
                }
                guard (try? parser.seek(to: component)) == true else { return nil }
            }
            return parser.position
        }
    }
}

extension CBORParser {
    /// Moves to the child named by `component` (`[i]` for an array element, else a map key)
    /// of the item at the current position.
    mutating func seek(to component: String) throws(CBORError) -> Bool {
        let start = position
        let initial = try readByte(itemStart: start)
        let major = initial >> 5
        switch (major, try readArgument(initial & 0x1f, major: major, itemStart: start)) {
        case (4, .value(let n)):
            guard component.first == "[", let index = UInt64(component.dropFirst().dropLast()), index < n else {
                return false
            }
            for _ in 0..<index { _ = try readItem(depth: 0) }
            return true
        case (5, .value(let n)):
            let wanted: CBOR = Int(component).map { CBOR.int($0) } ?? .text(component)
            for _ in 0..<n {
                let key = try readItem(depth: 0)
                if key == wanted { return true }
                _ = try readItem(depth: 0)
            }
            return false
        default:
            return false
        }
    }

    mutating func skipTagAndByteStringHeads() throws(CBORError) -> Bool {
        let start = position
        guard try readByte(itemStart: start) == 0xd8, try readByte(itemStart: start) == 24 else { return false }
        let head = try readByte(itemStart: start)
        guard head >> 5 == 2, case .value = try readArgument(head & 0x1f, major: 2, itemStart: start) else {
            return false
        }
        return true
    }
}

/// The key used for array positions, so paths can show `[i]`.
struct _IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "[\(intValue ?? 0)]" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}

/// A key built from a map entry while listing `allKeys` or decoding dictionaries.
struct _MapKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}
