/// binary16 ⇄ binary32 conversions done by hand: `Float16` is not available on
/// every platform Tessera targets (macOS on Intel), and CBOR needs only exact
/// conversions, never rounding.
enum Float16Bits {
    /// The exact `Float` value of a binary16 bit pattern (§3.3, Appendix D).
    static func toFloat(_ bits: UInt16) -> Float {
        let sign: FloatingPointSign = bits & 0x8000 != 0 ? .minus : .plus
        let exponent = Int((bits >> 10) & 0x1f)
        let mantissa = Float(bits & 0x3ff)
        switch exponent {
        case 0: return Float(sign: sign, exponent: -24, significand: mantissa)
        case 31:
            if bits & 0x3ff == 0 { return sign == .minus ? -.infinity : .infinity }
            // Keep the payload: quiet NaN with the half's mantissa bits shifted up.
            let payload = UInt32(bits & 0x3ff) << 13
            return Float(bitPattern: (sign == .minus ? 0x8000_0000 : 0) | 0x7f80_0000 | payload)
        default: return Float(sign: sign, exponent: exponent - 25, significand: mantissa + 1024)
        }
    }

    /// The binary16 bit pattern holding `value` exactly, or nil if none does.
    /// NaN maps to nil: callers choose how NaN is written.
    static func exact(_ value: Float) -> UInt16? {
        if value.isNaN { return nil }
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        if value.isInfinite { return sign | 0x7c00 }
        if value == 0 { return sign }
        let magnitude = value.magnitude
        let exponent = Int(magnitude.exponent)
        if exponent >= -14 && exponent <= 15 {
            let significand = magnitude.significandBitPattern
            guard significand & 0x1fff == 0 else { return nil }
            return sign | UInt16(exponent + 15) << 10 | UInt16(significand >> 13)
        }
        if exponent >= -24 && exponent < -14 {
            // Subnormal half: value = m × 2⁻²⁴ with m < 1024.
            let m = magnitude * 16_777_216
            guard m == m.rounded(.towardZero), m < 1024 else { return nil }
            return sign | UInt16(m)
        }
        return nil
    }
}
