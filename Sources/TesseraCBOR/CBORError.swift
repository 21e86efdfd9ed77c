/// Everything that can go wrong reading or mapping CBOR. Each case names the rule
/// broken and, where bytes were read, the byte offset (from the start of the input
/// handed to the decoder) of the item at fault.
public enum CBORError: Error, Equatable, Sendable {
    // Well-formedness (RFC 8949 §3, Appendix F).
    /// The input ended inside an item.
    case unexpectedEnd(offset: Int)
    /// Additional information 28–30 is reserved (§3).
    case reservedAdditionalInfo(UInt8, offset: Int)
    /// Indefinite length (31) on a major type that has none (0, 1, 6) (§3.2).
    case indefiniteLengthNotAllowed(majorType: UInt8, offset: Int)
    /// A "break" (0xff) outside an indefinite-length item (§3.2.1).
    case unexpectedBreak(offset: Int)
    /// A chunk of an indefinite-length string is not a definite string of the same type (§3.2.3).
    case invalidChunk(offset: Int)
    /// Simple values below 32 must use the one-byte form (§3.3).
    case invalidSimpleValue(UInt8, offset: Int)
    /// A declared length (or element count) cannot fit in the bytes left.
    case lengthExceedsInput(declared: UInt64, remaining: Int, offset: Int)

    // Validity, checked by the strict decoder (§5.3).
    /// Bytes after the single top-level item.
    case trailingBytes(offset: Int)
    /// A map holds the same key twice (§5.6).
    case duplicateMapKey(offset: Int)
    /// A text string is not valid UTF-8 (§3.1).
    case invalidUTF8(offset: Int)
    /// A tag's content has the wrong type, e.g. tag 2 not on a byte string (§3.4).
    case invalidTagContent(tag: UInt64, offset: Int)

    // Limits.
    case depthLimitExceeded(limit: Int, offset: Int)
    case itemLimitExceeded(limit: Int, offset: Int)

    // Deterministic mode (§4.2.1).
    /// An argument not in its shortest form, or a float that a shorter width holds exactly.
    case nonShortestForm(offset: Int)
    /// Indefinite-length item where definite length is required.
    case indefiniteLengthInDeterministicMode(offset: Int)
    /// Map keys not in bytewise lexicographic order of their encodings.
    case unsortedMapKeys(offset: Int)

    // Mapping to Swift types (the Codable bridge and typed accessors).
    /// The item is not of the type the structure expects. `offset` is nil when no bytes were read.
    case typeMismatch(expected: String, found: String, path: String, offset: Int?)
    /// A required map key is missing.
    case missingKey(String, path: String, offset: Int?)
    /// The item is of the right type but its value is not acceptable (range, format).
    case invalidValue(String, path: String, offset: Int?)
    /// The value cannot be encoded (e.g. a nested container misuse in the Codable bridge).
    case unencodable(String, path: String)

    /// The byte offset at which the fault was found, where known.
    public var offset: Int? {
        switch self {
        case .unexpectedEnd(let o), .reservedAdditionalInfo(_, let o), .indefiniteLengthNotAllowed(_, let o),
            .unexpectedBreak(let o), .invalidChunk(let o), .invalidSimpleValue(_, let o),
            .lengthExceedsInput(_, _, let o), .trailingBytes(let o), .duplicateMapKey(let o), .invalidUTF8(let o),
            .invalidTagContent(_, let o), .depthLimitExceeded(_, let o), .itemLimitExceeded(_, let o),
            .nonShortestForm(let o), .indefiniteLengthInDeterministicMode(let o), .unsortedMapKeys(let o):
            return o
        case .typeMismatch(_, _, _, let o), .missingKey(_, _, let o), .invalidValue(_, _, let o):
            return o
        case .unencodable:
            return nil
        }
    }
}

extension CBORError: CustomStringConvertible {
    public var description: String {
        func at(_ o: Int?) -> String { o.map { " at byte offset \($0)" } ?? "" }
        func path(_ p: String) -> String { p.isEmpty ? "" : " (at \(p))" }
        switch self {
        case .unexpectedEnd(let o): return "input ends inside an item\(at(o))"
        case .reservedAdditionalInfo(let v, let o): return "reserved additional information value \(v)\(at(o))"
        case .indefiniteLengthNotAllowed(let m, let o):
            return "indefinite length is not allowed for major type \(m)\(at(o))"
        case .unexpectedBreak(let o): return "break byte outside an indefinite-length item\(at(o))"
        case .invalidChunk(let o): return "chunk of an indefinite-length string has the wrong type\(at(o))"
        case .invalidSimpleValue(let v, let o): return "simple value \(v) in the two-byte form is not well-formed\(at(o))"
        case .lengthExceedsInput(let d, let r, let o):
            return "declared length \(d) exceeds the \(r) bytes left\(at(o))"
        case .trailingBytes(let o): return "trailing bytes after the data item\(at(o))"
        case .duplicateMapKey(let o): return "duplicate map key\(at(o))"
        case .invalidUTF8(let o): return "text string is not valid UTF-8\(at(o))"
        case .invalidTagContent(let t, let o): return "tag \(t) has content of the wrong type\(at(o))"
        case .depthLimitExceeded(let l, let o): return "nesting deeper than \(l)\(at(o))"
        case .itemLimitExceeded(let l, let o): return "more than \(l) data items\(at(o))"
        case .nonShortestForm(let o): return "not the shortest form (deterministic encoding)\(at(o))"
        case .indefiniteLengthInDeterministicMode(let o):
            return "indefinite length in deterministic encoding\(at(o))"
        case .unsortedMapKeys(let o): return "map keys not in deterministic order\(at(o))"
        case .typeMismatch(let e, let f, let p, let o): return "expected \(e), found \(f)\(path(p))\(at(o))"
        case .missingKey(let k, let p, let o): return "missing key \(k)\(path(p))\(at(o))"
        case .invalidValue(let m, let p, let o): return "\(m)\(path(p))\(at(o))"
        case .unencodable(let m, let p): return "cannot encode: \(m)\(path(p))"
        }
    }
}
