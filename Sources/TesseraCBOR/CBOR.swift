import Foundation

/// A CBOR data item (RFC 8949 §3), as decoded or as built by a caller.
///
/// Integers keep the wire's split between major type 0 and 1 so that the full
/// range −2⁶⁴ … 2⁶⁴−1 is representable. Floats keep their width so that a value
/// read from the wire can be printed or re-emitted as it was; the deterministic
/// encoder still chooses the shortest width (§4.2.1).
public enum CBOR: Hashable, Sendable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2 (indefinite-length chunks are joined on decode).
    case bytes(Data)
    /// Major type 3 (indefinite-length chunks are joined on decode).
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5, in the order received or built.
    case map(CBORMap)
    /// Major type 6.
    indirect case tagged(UInt64, CBOR)
    /// Major type 7, simple values other than false/true/null/undefined (§3.3).
    case simple(UInt8)
    case bool(Bool)
    case null
    case undefined
    /// IEEE 754 binary16, held exactly in a `Float`.
    case half(Float)
    /// IEEE 754 binary32.
    case float(Float)
    /// IEEE 754 binary64.
    case double(Double)
}

// MARK: - Convenience constructors

extension CBOR {
    /// An integer; negative values use major type 1 (`-1 - n`, so `n = ~value`).
    public static func int(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(bitPattern: ~value))
    }

    public static func int(_ value: Int) -> CBOR { .int(Int64(value)) }
}

extension CBOR: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: CBOR...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (CBOR, CBOR)...) {
        self = .map(CBORMap(elements.map { CBORMap.Entry(key: $0.0, value: $0.1) }))
    }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
}

// MARK: - Accessors

extension CBOR {
    /// The value as `Int64`, if it is an integer in that range.
    public var int64Value: Int64? {
        switch self {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): return n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: return nil
        }
    }

    /// The value as `Int`, if it is an integer in that range.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    public var uint64Value: UInt64? {
        if case .unsigned(let n) = self { return n }
        return nil
    }

    public var bytesValue: Data? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    public var textValue: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    public var arrayValue: [CBOR]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var mapValue: CBORMap? {
        if case .map(let m) = self { return m }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// Any float width widened to `Double`.
    public var doubleValue: Double? {
        switch self {
        case .half(let f), .float(let f): return Double(f)
        case .double(let d): return d
        default: return nil
        }
    }

    public var isNull: Bool { self == .null }

    /// `(tag, content)` if this is a tagged item.
    public var taggedValue: (tag: UInt64, content: CBOR)? {
        if case .tagged(let t, let c) = self { return (t, c) }
        return nil
    }

    /// Looks a key up in a map item; nil for other items.
    public subscript(key: CBOR) -> CBOR? { mapValue?[key] }

    /// A short name of the item's kind, used in error messages.
    public var kindName: String {
        switch self {
        case .unsigned, .negative: return "integer"
        case .bytes: return "byte string"
        case .text: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged(let t, _): return "tag \(t)"
        case .simple: return "simple value"
        case .bool: return "boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .half, .float, .double: return "float"
        }
    }
}
