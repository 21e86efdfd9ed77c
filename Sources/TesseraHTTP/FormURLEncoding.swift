import Foundation

/// `application/x-www-form-urlencoded` (RFC 6749 Appendix B, WHATWG URL §5): how OAuth parameters travel in a
/// query, a fragment and a POST body. One codec for every module: OpenID4VP, the services' form bodies, OpenID4VCI.
public enum FormURLEncoding {
    /// Decodes `name=value&…` into ordered pairs: `+` is a space, `%XX` a byte, and the bytes must be UTF-8.
    /// Empty segments (`a=1&&b=2`) are skipped. A name given twice throws `duplicateParameter` (RFC 6749 §3.1).
    public static func decode(_ text: some StringProtocol) throws(FormURLEncodingError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        var seen = Set<String>()
        let bytes = Array(text.utf8)
        for segment in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = segment.firstIndex(of: UInt8(ascii: "="))
            let rawName = equals.map { segment[segment.startIndex..<$0] } ?? segment[...]
            let rawValue = equals.map { segment[segment.index(after: $0)...] } ?? segment[segment.endIndex...]
            let name = try percentDecode(rawName)
            let value = try percentDecode(rawValue)
            guard seen.insert(name).inserted else { throw .duplicateParameter(name) }
            pairs.append((name, value))
        }
        return pairs
    }

    /// Encodes pairs in order; every byte outside the RFC 3986 unreserved set is percent-encoded (so `+`, `&`,
    /// `=` and spaces in values are safe).
    public static func encode(_ pairs: [(String, String)]) -> String {
        var out = ""
        out.reserveCapacity(pairs.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 })
        for (index, pair) in pairs.enumerated() {
            if index > 0 { out.append("&") }
            appendEncoded(pair.0, to: &out)
            out.append("=")
            appendEncoded(pair.1, to: &out)
        }
        return out
    }

    /// One component percent-encoded (unreserved characters kept).
    public static func encodeComponent(_ text: String) -> String {
        var out = ""
        appendEncoded(text, to: &out)
        return out
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func appendEncoded(_ text: String, to out: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        out.append(String(decoding: bytes, as: UTF8.self))
    }

    /// RFC 3986 §2.3 unreserved characters: letters, digits, `-`, `.`, `_`, `~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func percentDecode(_ bytes: ArraySlice<UInt8>) throws(FormURLEncodingError) -> String {
        // Most values (a JWE, a JWT, an id) have nothing to decode: validated straight into a String.
        if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformedParameters("parameter is not UTF-8") }
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                guard first < bytes.endIndex else { throw .malformedParameters("truncated percent escape") }
                let second = bytes.index(after: first)
                guard second < bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) else {
                    throw .malformedParameters("invalid percent escape")
                }
                out.append(high << 4 | low)
                index = bytes.index(after: second)
            } else {
                out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = bytes.index(after: index)
            }
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw .malformedParameters("parameter is not UTF-8")
        }
        return text
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// Why a form could not be decoded.
public enum FormURLEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A name given twice (RFC 6749 §3.1: parameters MUST NOT be included more than once).
    case duplicateParameter(String)
    /// A percent escape that is not two hex digits, or bytes that are not UTF-8.
    case malformedParameters(String)

    public var description: String {
        switch self {
        case .duplicateParameter(let name): return "parameter \(name) appears more than once"
        case .malformedParameters(let reason): return "malformed form parameters (\(reason))"
        }
    }
}
