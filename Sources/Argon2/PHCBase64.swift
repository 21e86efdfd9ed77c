/// Unpadded standard base64 (RFC 4648 §4 alphabet, no `=`), the encoding of salt and hash in the PHC string
/// format. Decoding is canonical only: no padding, no other characters, unused trailing bits zero, so every
/// byte string has exactly one accepted text.
enum PHCBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Characters needed for `byteCount` bytes.
    static func encodedLength(_ byteCount: Int) -> Int { (byteCount * 4 + 2) / 3 }

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(encodedLength(bytes.count))
        var i = 0
        while i < bytes.count {
            let remaining = bytes.count - i
            let b0 = UInt32(bytes[i])
            let b1 = remaining > 1 ? UInt32(bytes[i + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[i + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 0x3f)])
            out.append(alphabet[Int(group >> 12 & 0x3f)])
            if remaining > 1 { out.append(alphabet[Int(group >> 6 & 0x3f)]) }
            if remaining > 2 { out.append(alphabet[Int(group & 0x3f)]) }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes, or nil when `text` is not canonical unpadded base64.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits (2 or 4) must be zero, or two texts would decode to the same bytes.
        guard accumulator == 0 else { return nil }
        return out
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
