import Foundation

/// Splitting and decoding the dot-separated segments of a compact serialization (RFC 7515 §7.1, RFC 7516 §7.1).
enum CompactSegments {
    /// Positions of the dots in `text`; stops once more than five are found (no compact form has more than four).
    static func dotIndices(in text: String) -> [String.Index] {
        var dots: [String.Index] = []
        let utf8 = text.utf8
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == UInt8(ascii: ".") {
                dots.append(index)
                if dots.count > 5 { break }
            }
            index = utf8.index(after: index)
        }
        return dots
    }

    /// Strict base64url decoding of one segment.
    static func decode(_ segment: Substring.UTF8View) throws(JOSEError) -> Data {
        if let result = segment.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JOSEError) -> Data in try Base64URL.decode(utf8: buffer) }
        }) {
            return try result.get()
        }
        let copy = Array(segment)
        return try copy.withUnsafeBufferPointer { (buffer) throws(JOSEError) -> Data in try Base64URL.decode(utf8: buffer) }
    }

    /// Decodes a protected header segment: base64url, then a JSON object (RFC 7515 §5.2 steps 2–4).
    static func decodeHeader(_ segment: Substring.UTF8View, limits: JSONLimits) throws(JOSEError) -> JSONObject {
        let bytes = try decode(segment)
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes, limits: limits)
        } catch {
            throw .invalidHeader(error)
        }
        guard let object = value.objectValue else { throw .headerNotObject }
        return object
    }
}
