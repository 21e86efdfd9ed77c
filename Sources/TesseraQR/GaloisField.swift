/// Arithmetic in GF(2^8) with the QR Code field polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D),
/// ISO/IEC 18004:2015 §7.5.2. Multiplication goes through exponent and logarithm tables of α = 2.
enum GaloisField {
    /// `exp[i]` = α^i, stored twice over (510 entries) so a sum of two logarithms needs no reduction.
    static let exp: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 510)
        var value = 1
        for i in 0..<255 {
            table[i] = UInt8(value)
            table[i + 255] = UInt8(value)
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return table
    }()

    /// `log[v]` = i with α^i = v, for v in 1...255 (`log[0]` is unused).
    static let log: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 256)
        for i in 0..<255 { table[Int(exp[i])] = UInt8(i) }
        return table
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        if a == 0 || b == 0 { return 0 }
        return exp[Int(log[Int(a)]) + Int(log[Int(b)])]
    }
}
