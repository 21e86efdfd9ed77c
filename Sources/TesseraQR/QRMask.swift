/// Data masking (ISO/IEC 18004:2015 §7.8): the eight mask patterns and the penalty score that picks one.
enum QRMask {
    static let references: ClosedRange<Int> = 0...7

    /// Table 10: whether mask `reference` inverts the module in row `i`, column `j`.
    @inline(__always)
    static func inverts(_ reference: Int, i: Int, j: Int) -> Bool {
        switch reference {
        case 0: return (i + j) % 2 == 0
        case 1: return i % 2 == 0
        case 2: return j % 3 == 0
        case 3: return (i + j) % 3 == 0
        case 4: return (i / 2 + j / 3) % 2 == 0
        case 5: return (i * j) % 2 + (i * j) % 3 == 0
        case 6: return ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: return ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// XORs mask `reference` onto every module that is not a function module.
    static func apply(_ reference: Int, to matrix: inout QRMatrix) {
        let n = matrix.size
        matrix.isFunction.withUnsafeBufferPointer { function in
            matrix.modules.withUnsafeMutableBufferPointer { grid in
                for i in 0..<n {
                    let row = i * n
                    for j in 0..<n where function[row + j] == 0 && inverts(reference, i: i, j: j) {
                        grid[row + j] ^= 1
                    }
                }
            }
        }
    }

    /// §7.8.3, Table 11: the penalty of a masked symbol, the sum of
    /// N1 (3 + k for each run of 5 + k same-colour modules in a row or column),
    /// N2 (3 for each 2×2 block of one colour, blocks may overlap),
    /// N3 (40 for each 1:1:3:1:1 dark-light-dark-light-dark pattern in a row or column with 4 light modules
    ///     before or after it; modules outside the symbol count as light, being quiet zone), and
    /// N4 (10 for each full 5 % by which the share of dark modules departs from 50 %).
    static func penalty(of modules: UnsafeBufferPointer<UInt8>, size n: Int) -> Int {
        var score = 0
        var dark = 0
        // Rows (stride 1) and columns (stride n) share one scan.
        for line in 0..<n {
            score += linePenalty(modules, start: line * n, stride: 1, count: n)
            score += linePenalty(modules, start: line, stride: n, count: n)
        }
        for y in 0..<n {
            let row = y * n
            for x in 0..<n { dark &+= Int(modules[row + x]) }
            guard y + 1 < n else { continue }
            let next = row + n
            for x in 0..<(n - 1) {
                let c = modules[row + x]
                if c == modules[row + x + 1] && c == modules[next + x] && c == modules[next + x + 1] { score += 3 }
            }
        }
        let total = n * n
        score += 10 * (abs(dark * 20 - total * 10) / total)
        return score
    }

    private static let window15 = 0x7FFF
    private static let lightThenPattern = 0b0000_1011101  // 4 light, then dark-light-dark-dark-dark-light-dark
    private static let patternThenLight = 0b1011101_0000  // the pattern, then 4 light

    /// N3 for the pattern that the 15-module window shows: 40 once per pattern occurrence, found either when
    /// it ends after 4 light modules or 4 modules later, when 4 light modules follow it (counted then only if
    /// the modules before it were not all light).
    @inline(__always)
    private static func finderLikePenalty(_ window: Int) -> Int {
        let low = window & 0x7FF
        if low == lightThenPattern { return 40 }
        if low == patternThenLight && window >> 11 != 0 { return 40 }
        return 0
    }

    /// N1 and N3 for one row or column.
    static func linePenalty(
        _ m: UnsafeBufferPointer<UInt8>, start: Int, stride: Int, count: Int
    ) -> Int {
        var score = 0
        // N1: runs of the same colour.
        var runColour = m[start]
        var runLength = 1
        // N3: the latest 15 modules as bits (newest in bit 0); before the line they are light (quiet zone).
        var window = 0
        for k in 0..<count {
            let c = m[start + k * stride]
            if k > 0 {
                if c == runColour {
                    runLength += 1
                } else {
                    if runLength >= 5 { score += runLength - 2 }
                    runColour = c
                    runLength = 1
                }
            }
            window = (window << 1 | Int(c)) & window15
            score += finderLikePenalty(window)
        }
        if runLength >= 5 { score += runLength - 2 }
        // Past the end the quiet zone is light: a pattern in the last modules may still be followed by 4 light.
        for _ in 0..<4 {
            window = (window << 1) & window15
            score += finderLikePenalty(window)
        }
        return score
    }
}
