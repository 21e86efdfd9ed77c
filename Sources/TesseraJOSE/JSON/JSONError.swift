/// Why JSON text was rejected (RFC 8259). Every case raised by the parser carries the byte offset where the
/// problem was found.
public enum JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is longer than `JSONLimits.maxBytes`.
    case tooLarge(size: Int, limit: Int)
    /// Arrays and objects nest deeper than `JSONLimits.maxDepth`.
    case depthLimitExceeded(offset: Int, limit: Int)
    /// The text ends inside a value (RFC 8259 §2).
    case unexpectedEnd(offset: Int)
    /// A byte that the grammar does not allow here (RFC 8259 §2–§7), including a byte order mark.
    case unexpectedByte(offset: Int, byte: UInt8)
    /// A complete value is followed by more than white space (RFC 8259 §2: JSON-text = ws value ws).
    case trailingContent(offset: Int)
    /// The bytes are not well-formed UTF-8 (RFC 8259 §8.1).
    case invalidUTF8(offset: Int)
    /// An unescaped control character U+0000–U+001F inside a string (RFC 8259 §7).
    case controlCharacterInString(offset: Int)
    /// A backslash followed by something other than the escapes of RFC 8259 §7.
    case invalidEscape(offset: Int)
    /// A `\u` escape that is not four hex digits, or a surrogate without its pair (RFC 8259 §7, §8.2).
    case invalidUnicodeEscape(offset: Int)
    /// A number that does not follow the grammar of RFC 8259 §6 (leading zeros, lone '-', '.' without digits …).
    case invalidNumber(offset: Int)
    /// A number too large to be represented as a finite double (RFC 8259 §6).
    case numberOutOfRange(offset: Int)
    /// An object has two members with the same name (RFC 8259 §4: names SHOULD be unique; rejected here, as
    /// RFC 7515 §5.2 and RFC 7516 §5.2 require for JOSE headers). `offset` is nil when the object was built in
    /// code rather than parsed.
    case duplicateMemberName(String, offset: Int?)

    /// The byte offset, when the error came from parsing.
    public var offset: Int? {
        switch self {
        case .tooLarge: return nil
        case .depthLimitExceeded(let offset, _), .unexpectedEnd(let offset), .unexpectedByte(let offset, _),
            .trailingContent(let offset), .invalidUTF8(let offset), .controlCharacterInString(let offset),
            .invalidEscape(let offset), .invalidUnicodeEscape(let offset), .invalidNumber(let offset),
            .numberOutOfRange(let offset):
            return offset
        case .duplicateMemberName(_, let offset): return offset
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let size, let limit): return "JSON text of \(size) bytes exceeds the limit of \(limit)"
        case .depthLimitExceeded(let offset, let limit): return "nesting deeper than \(limit) at offset \(offset)"
        case .unexpectedEnd(let offset): return "RFC 8259 §2: unexpected end of text at offset \(offset)"
        case .unexpectedByte(let offset, let byte):
            return "RFC 8259 §2: unexpected byte 0x\(String(byte, radix: 16)) at offset \(offset)"
        case .trailingContent(let offset): return "RFC 8259 §2: content after the value at offset \(offset)"
        case .invalidUTF8(let offset): return "RFC 8259 §8.1: invalid UTF-8 at offset \(offset)"
        case .controlCharacterInString(let offset):
            return "RFC 8259 §7: unescaped control character in a string at offset \(offset)"
        case .invalidEscape(let offset): return "RFC 8259 §7: invalid escape at offset \(offset)"
        case .invalidUnicodeEscape(let offset):
            return "RFC 8259 §7: invalid \\u escape or unpaired surrogate at offset \(offset)"
        case .invalidNumber(let offset): return "RFC 8259 §6: malformed number at offset \(offset)"
        case .numberOutOfRange(let offset): return "RFC 8259 §6: number out of range at offset \(offset)"
        case .duplicateMemberName(let name, let offset):
            return "RFC 8259 §4: duplicate member name \"\(name)\"" + (offset.map { " at offset \($0)" } ?? "")
        }
    }
}

/// Size and nesting limits for untrusted JSON text.
public struct JSONLimits: Sendable, Hashable {
    /// Longest accepted text, in bytes.
    public var maxBytes: Int
    /// Deepest accepted nesting of arrays and objects (a scalar at top level has depth 0).
    public var maxDepth: Int

    public init(maxBytes: Int, maxDepth: Int) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// 4 MiB and 64 levels: room for large presentations, bounded for hostile input.
    public static let `default` = JSONLimits(maxBytes: 4 << 20, maxDepth: 64)
}
