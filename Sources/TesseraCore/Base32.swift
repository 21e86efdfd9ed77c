/// RFC 4648 §6 base32 without padding: nkeys and NATS identifiers, `otpauth://` secrets (upper case) and the
/// wallet's random key and credential identifiers (lower case). One encoder for the whole toolkit.
public enum Base32 {
    private static let upper = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
    private static let lower = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// The unpadded encoding, in upper case unless `lowercase`.
    public static func encode(_ bytes: some Collection<UInt8>, lowercase: Bool = false) -> String {
        let alphabet = lowercase ? lower : upper
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

    /// Decodes the unpadded upper-case encoding. Nil for a character outside the alphabet (padding included), a
    /// length no encoding produces (1, 3 or 6 characters mod 8) or non-zero unused low bits (§3.5: canonical
    /// encodings only, so one value has one text).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let count = text.utf8.count
        guard ![1, 3, 6].contains(count % 8) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(count * 5 / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = character - UInt8(ascii: "A")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = character - UInt8(ascii: "2") + 26
            default: return nil
            }
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        guard buffer == 0 else { return nil }
        return out
    }
}
