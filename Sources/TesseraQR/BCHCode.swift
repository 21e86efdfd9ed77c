/// The BCH codes protecting the format and version information.
enum BCHCode {
    /// Format information (ISO/IEC 18004:2015 §7.9.1, Annex C): the 5 data bits (level indicator, mask
    /// reference) extended by the 10-bit remainder of the (15,5) BCH code with generator
    /// x^10 + x^8 + x^5 + x^4 + x^2 + x + 1 (0x537), then XORed with 101010000010010 (0x5412) so that
    /// no combination is all zeros.
    static func formatInformation(level: QRErrorCorrectionLevel, mask: Int) -> Int {
        let data = level.formatIndicator << 3 | (mask & 0b111)
        return (data << 10 | remainder(data << 10, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// Version information (§7.10, Annex D), versions 7 and up: the 6-bit version number extended by the
    /// 12-bit remainder of the (18,6) BCH code with generator
    /// x^12 + x^11 + x^10 + x^9 + x^8 + x^5 + x^2 + 1 (0x1F25).
    static func versionInformation(version: Int) -> Int {
        let data = version & 0b11_1111
        return data << 12 | remainder(data << 12, generator: 0x1F25, degree: 12)
    }

    /// Polynomial remainder over GF(2): `value` modulo `generator` (of the given degree).
    private static func remainder(_ value: Int, generator: Int, degree: Int) -> Int {
        var r = value
        var bit = Int.bitWidth - 1 - r.leadingZeroBitCount
        while r != 0 && bit >= degree {
            if r >> bit & 1 == 1 { r ^= generator << (bit - degree) }
            bit -= 1
        }
        return r
    }
}
