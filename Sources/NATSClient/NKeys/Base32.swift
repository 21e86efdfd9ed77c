import Foundation

/// RFC 4648 §6 base32 (alphabet `A–Z2–7`) without padding, as nkeys and JWT `jti`s use it.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int(buffer >> UInt32(bits) & 31)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int(buffer << UInt32(5 - bits) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base32; a character outside the alphabet, a length no encoding produces
    /// (1, 3 or 6 characters mod 8) or non-zero trailing bits throw `invalidEncoding`.
    public static func decode(_ text: some StringProtocol) throws(NATSError) -> [UInt8] {
        let chars = Array(text.utf8)
        guard ![1, 3, 6].contains(chars.count % 8) else { throw .invalidEncoding }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for c in chars {
            let value: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = c - UInt8(ascii: "A")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = c - UInt8(ascii: "2") + 26
            default: throw .invalidEncoding
            }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        // Canonical encodings leave the unused low bits zero.
        guard buffer == 0 else { throw .invalidEncoding }
        return out
    }
}
