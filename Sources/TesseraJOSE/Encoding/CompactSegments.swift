import Foundation
import TesseraCore

/// Splitting and decoding the dot-separated segments of a compact serialization (RFC 7515 §7.1, RFC 7516 §7.1).
enum CompactSegments {
    /// Positions of the dots in `text`; stops once more than five are found (no compact form has more than four).
    /// The dots are found with `memchr` on the string's contiguous UTF-8 bytes (a dot is ASCII, so every position
    /// found is a valid index).
    static func dotIndices(in text: String) -> [String.Index] {
        let utf8 = text.utf8
        let offsets: [Int]? = utf8.withContiguousStorageIfAvailable { bytes in
            var found: [Int] = []
            found.reserveCapacity(6)
            guard let base = bytes.baseAddress else { return found }
            var offset = 0
            while offset < bytes.count, let hit = memchr(base + offset, Int32(UInt8(ascii: ".")), bytes.count - offset) {
                let position = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                found.append(position)
                if found.count > 5 { break }
                offset = position + 1
            }
            return found
        }
        guard let offsets else { return slowDotIndices(in: text) }
        return offsets.map { utf8.index(utf8.startIndex, offsetBy: $0) }
    }

    /// For strings whose UTF-8 is not stored contiguously (bridged strings).
    private static func slowDotIndices(in text: String) -> [String.Index] {
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

    /// Calls `body` with the segment's contiguous UTF-8 bytes (copied only when the string is not contiguous).
    static func withBytes<Result>(
        _ segment: Substring.UTF8View, _ body: (UnsafeBufferPointer<UInt8>) throws(JOSEError) -> Result
    ) throws(JOSEError) -> Result {
        if let result = segment.withContiguousStorageIfAvailable({ buffer in
            Swift.Result { () throws(JOSEError) -> Result in try body(buffer) }
        }) {
            return try result.get()
        }
        let copy = Array(segment)
        return try copy.withUnsafeBufferPointer { (buffer) throws(JOSEError) -> Result in try body(buffer) }
    }

    /// Strict base64url decoding of one segment.
    static func decode(_ segment: Substring.UTF8View) throws(JOSEError) -> Data {
        try withBytes(segment) { (buffer) throws(JOSEError) -> Data in try Base64URL.joseDecode(utf8: buffer) }
    }

    /// Decodes a protected header segment: base64url, then a JSON object (RFC 7515 §5.2 steps 2–4). The decoded
    /// bytes live only in a temporary buffer: the header is kept as the parsed object and as the received segment.
    static func decodeHeader(_ segment: Substring.UTF8View, limits: JSONLimits) throws(JOSEError) -> JSONObject {
        let parsed = try withBytes(segment) { (buffer) throws(JOSEError) -> Swift.Result<JSONValue, JSONError> in
            try Base64URL.joseWithDecoded(utf8: buffer) { bytes in
                Swift.Result { () throws(JSONError) -> JSONValue in try JSONParser.parse(bytes, limits: limits) }
            }
        }
        let value: JSONValue
        switch parsed {
        case .success(let parsedValue): value = parsedValue
        case .failure(let error): throw .invalidHeader(error)
        }
        guard let object = value.objectValue else { throw .headerNotObject }
        return object
    }
}
