import Testing

@testable import TesseraQR

@Suite("Format and version information (ISO/IEC 18004 §7.9, §7.10, Annexes C and D)")
struct BCHCodeTests {
    /// Table C.1: the 32 masked format information bit sequences, by level indicator (M 00, L 01, H 10, Q 11)
    /// then mask 0…7.
    static let formatTable: [Int] = [
        0x5412, 0x5125, 0x5E7C, 0x5B4B, 0x45F9, 0x40CE, 0x4F97, 0x4AA0,  // M
        0x77C4, 0x72F3, 0x7DAA, 0x789D, 0x662F, 0x6318, 0x6C41, 0x6976,  // L
        0x1689, 0x13BE, 0x1CE7, 0x19D0, 0x0762, 0x0255, 0x0D0C, 0x083B,  // H
        0x355F, 0x3068, 0x3F31, 0x3A06, 0x24B4, 0x2183, 0x2EDA, 0x2BED,  // Q
    ]

    @Test("Format information for all 32 level/mask combinations")
    func formatInformation() {
        for level in QRErrorCorrectionLevel.allCases {
            for mask in 0...7 {
                let expected = Self.formatTable[level.formatIndicator * 8 + mask]
                #expect(BCHCode.formatInformation(level: level, mask: mask) == expected, "\(level.letter) mask \(mask)")
            }
        }
        // Annex C example: M (00), mask 101 → 100000011001110.
        #expect(BCHCode.formatInformation(level: .medium, mask: 5) == 0b100_0000_1100_1110)
    }

    /// Table D.1: version information bit sequences for versions 7…40.
    static let versionTable: [Int] = [
        0x07C94, 0x085BC, 0x09A99, 0x0A4D3, 0x0BBF6, 0x0C762, 0x0D847, 0x0E60D, 0x0F928, 0x10B78,
        0x1145D, 0x12A17, 0x13532, 0x149A6, 0x15683, 0x168C9, 0x177EC, 0x18EC4, 0x191E1, 0x1AFAB,
        0x1B08E, 0x1CC1A, 0x1D33F, 0x1ED75, 0x1F250, 0x209D5, 0x216F0, 0x228BA, 0x2379F, 0x24B0B,
        0x2542E, 0x26A64, 0x27541, 0x28C69,
    ]

    @Test("Version information for versions 7–40")
    func versionInformation() {
        #expect(Self.versionTable.count == 34)
        for (offset, expected) in Self.versionTable.enumerated() {
            #expect(BCHCode.versionInformation(version: 7 + offset) == expected, "version \(7 + offset)")
        }
    }

    /// Any two format (or version) sequences differ in at least 7 (8) bits, which is what lets a reader
    /// correct 3 (4) bit errors; a wrong generator or XOR mask would break this.
    @Test("Minimum Hamming distances of the two codes")
    func hammingDistances() {
        var formats: [Int] = []
        for level in QRErrorCorrectionLevel.allCases {
            for mask in 0...7 { formats.append(BCHCode.formatInformation(level: level, mask: mask)) }
        }
        let versions = (7...40).map { BCHCode.versionInformation(version: $0) }
        func minimumDistance(_ codes: [Int]) -> Int {
            var best = Int.max
            for i in codes.indices {
                for j in codes.indices where j > i { best = min(best, (codes[i] ^ codes[j]).nonzeroBitCount) }
            }
            return best
        }
        #expect(minimumDistance(formats) >= 7)
        #expect(minimumDistance(versions) >= 8)
    }
}
