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

// MARK: - Equality in the data model

extension CBOR {
    /// Data-model equality (RFC 8949 §2): two items are equal exactly when their core deterministic
    /// encodings (§4.2.1) are. So float widths do not matter (1.0 as half equals 1.0 as double),
    /// 0.0 and -0.0 differ, every NaN equals every NaN (§4.2.2 writes them all as f97e00), integers
    /// never equal floats, text compares by UTF-8 bytes (not Unicode canonical equivalence), bignums
    /// compare by value (2(h'00ff') equals 255), and map entry order does not matter. Duplicate-key detection uses this same rule.
    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        sameItem(lhs.preferredBignum ?? lhs, rhs.preferredBignum ?? rhs)
    }

    /// A bignum (tag 2 or 3) in its preferred serialization (§3.4.3): a plain integer when 64 bits
    /// hold it, else without leading zero bytes. Nil for anything that is not a bignum.
    var preferredBignum: CBOR? {
        guard case .tagged(let tag, .bytes) = self, tag == CBORTag.positiveBignum || tag == CBORTag.negativeBignum
        else { return nil }
        return CBORBignum(self)?.cbor
    }

    private static func sameItem(_ lhs: CBOR, _ rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.text(let a), .text(let b)): return a.hasSameUTF8(as: b)
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        case (.tagged(let t, let a), .tagged(let u, let b)): return t == u && a == b
        case (.simple(let a), .simple(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return false }
            return Self.sameFloat(a, b)
        }
    }

    static func sameFloat(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        return a.bitPattern == b.bitPattern
    }

    public func hash(into hasher: inout Hasher) {
        switch preferredBignum ?? self {
        case .unsigned(let n):
            hasher.combine(0 as UInt8)
            hasher.combine(n)
        case .negative(let n):
            hasher.combine(1 as UInt8)
            hasher.combine(n)
        case .bytes(let d):
            hasher.combine(2 as UInt8)
            hasher.combine(d)
        case .text(let s):
            hasher.combine(3 as UInt8)
            var s = s
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .array(let a):
            hasher.combine(4 as UInt8)
            hasher.combine(a)
        case .map(let m):
            hasher.combine(5 as UInt8)
            hasher.combine(m)
        case .tagged(let t, let c):
            hasher.combine(6 as UInt8)
            hasher.combine(t)
            hasher.combine(c)
        case .simple(let v):
            hasher.combine(7 as UInt8)
            hasher.combine(v)
        case .bool(let b): hasher.combine(b ? 21 as UInt8 : 20)
        case .null: hasher.combine(22 as UInt8)
        case .undefined: hasher.combine(23 as UInt8)
        case .half, .float, .double:
            let d = doubleValue ?? 0
            hasher.combine(25 as UInt8)
            hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern)
        }
    }
}
