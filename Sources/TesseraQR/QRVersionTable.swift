/// The size and error correction characteristics of each version (ISO/IEC 18004:2015 §5.3.1 and Table 9).
enum QRVersionTable {
    static let versions: ClosedRange<Int> = 1...40

    /// Modules per side: 21 for version 1, 4 more per version (§5.3.1).
    static func size(_ version: Int) -> Int { 17 + 4 * version }

    /// Table 9, error correction codewords per block, by level (L, M, Q, H) then version 1...40.
    private static let eccPerBlock: [[UInt8]] = [
        [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Table 9, number of error correction blocks, by level (L, M, Q, H) then version 1...40.
    private static let blockCount: [[UInt8]] = [
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Error correction codewords in each block (`version` in 1...40).
    static func eccCodewordsPerBlock(_ version: Int, _ level: QRErrorCorrectionLevel) -> Int {
        Int(eccPerBlock[level.tableIndex][version - 1])
    }

    /// Number of error correction blocks (`version` in 1...40).
    static func blocks(_ version: Int, _ level: QRErrorCorrectionLevel) -> Int {
        Int(blockCount[level.tableIndex][version - 1])
    }

    /// Row/column centres of the alignment patterns (§6.3.6, Annex E): none for version 1, otherwise
    /// `version / 7 + 2` positions from 6 to `size - 7`, spaced evenly by an even step taken from the far end
    /// (version 32 is the one version whose step, 26, is below the rounded-up even spacing).
    static func alignmentCentres(_ version: Int) -> [Int] {
        guard version >= 2 else { return [] }
        let count = version / 7 + 2
        let last = size(version) - 7
        let span = last - 6
        let intervals = count - 1
        // Smallest even step that covers the span in `intervals` steps.
        var step = (span + 2 * intervals - 1) / (2 * intervals) * 2
        if version == 32 { step = 26 }
        var centres = [Int](repeating: 6, count: count)
        for i in 1..<count { centres[count - i] = last - (i - 1) * step }
        return centres
    }

    /// Modules left for data and error correction codewords (and remainder bits) once the function
    /// patterns, format and version information are placed (§6.3).
    static func dataModules(_ version: Int) -> Int {
        let side = size(version)
        let n = version >= 2 ? version / 7 + 2 : 0
        var modules = side * side
        modules -= 3 * 64  // finder patterns with their separators (§6.3.3, §6.3.4)
        modules -= 2 * 15 + 1  // two copies of the format information and the dark module (§7.9.1)
        modules -= 2 * (side - 16)  // timing patterns (§6.3.5)
        if n > 0 {
            modules -= 25 * (n * n - 3)  // alignment patterns, except the three that would overlap finders
            modules += 5 * 2 * (n - 2)  // … of which those on row or column 6 share 5 modules with timing
        }
        if version >= 7 { modules -= 2 * 18 }  // version information (§7.10)
        return modules
    }

    /// Total codewords of the symbol (Table 7): whole 8-bit codewords in the data region.
    static func totalCodewords(_ version: Int) -> Int { dataModules(version) / 8 }

    /// Data codewords (Table 7): total minus error correction codewords.
    static func dataCodewords(_ version: Int, _ level: QRErrorCorrectionLevel) -> Int {
        totalCodewords(version) - eccCodewordsPerBlock(version, level) * blocks(version, level)
    }

    /// Bits of the character count indicator for byte mode (Table 3): 8 for versions 1–9, 16 from version 10.
    static func byteCountBits(_ version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// Largest byte-mode payload for the version and level: mode indicator (4 bits), count indicator, 8 bits a byte.
    static func byteCapacity(_ version: Int, _ level: QRErrorCorrectionLevel) -> Int {
        let bits = dataCodewords(version, level) * 8 - 4 - byteCountBits(version)
        return max(0, bits / 8)
    }
}
