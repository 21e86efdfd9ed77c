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

    /// XORs mask `reference` onto every module that is not a function module. Along a row every pattern
    /// repeats after 6 columns, so each row takes its 6-column phase pattern once and then walks the columns.
    static func apply(_ reference: Int, to matrix: inout QRMatrix) {
        let n = matrix.size
        matrix.isFunction.withUnsafeBufferPointer { function in
            matrix.modules.withUnsafeMutableBufferPointer { grid in
                for i in 0..<n {
                    var pattern: UInt8 = 0
                    for phase in 0..<6 where inverts(reference, i: i, j: phase) { pattern |= 1 << phase }
                    let row = i &* n
                    var phase: UInt8 = 0
                    for j in 0..<n {
                        let k = row &+ j
                        grid[k] ^= (pattern >> phase) & 1 & (function[k] ^ 1)
                        phase = phase == 5 ? 0 : phase &+ 1
                    }
                }
            }
        }
    }

    /// `rowPattern` for every mask and row modulo 12 (the patterns repeat after 12 rows), mask-major.
    static let rowPatterns: [BitLine] = (0..<96).map { rowPattern($0 / 12, row: $0 % 12) }
    /// `columnPattern` for every mask and column modulo 6 (the patterns repeat after 6 columns), mask-major.
    static let columnPatterns: [BitLine] = (0..<48).map { columnPattern($0 / 6, column: $0 % 6) }

    /// The mask along row `i` as bits (bit j for column j): every pattern repeats after 6 columns.
    static func rowPattern(_ reference: Int, row i: Int) -> BitLine {
        var period: UInt64 = 0
        for t in 0..<6 where inverts(reference, i: i, j: t) { period |= 1 << UInt64(t) }
        // Word k starts at column 64·k, which is 4·k modulo 6.
        return BitLine(repeated(period, every: 6, from: 0), repeated(period, every: 6, from: 4),
                       repeated(period, every: 6, from: 2))
    }

    /// The mask down column `j` as bits (bit i for row i): every pattern repeats after 12 rows.
    static func columnPattern(_ reference: Int, column j: Int) -> BitLine {
        var period: UInt64 = 0
        for t in 0..<12 where inverts(reference, i: t, j: j) { period |= 1 << UInt64(t) }
        // Word k starts at row 64·k, which is 4·k modulo 12.
        return BitLine(repeated(period, every: 12, from: 0), repeated(period, every: 12, from: 4),
                       repeated(period, every: 12, from: 8))
    }

    /// A 64-bit word whose bit b is bit (b + phase) mod length of the `length`-bit `pattern`.
    @inline(__always)
    private static func repeated(_ pattern: UInt64, every length: UInt64, from phase: UInt64) -> UInt64 {
        let all: UInt64 = (1 << length) - 1
        var word = phase == 0 ? pattern : (pattern >> phase | pattern << (length - phase)) & all
        var width = length
        while width < 64 {
            word |= word << width
            width &*= 2
        }
        return word
    }

    /// §7.8.3: the mask (0...7) whose masked symbol, with its format information, has the lowest penalty;
    /// the lowest reference wins a tie. Works on packed rows and columns: the base grid and the function
    /// modules are packed once, then each mask is XORed in 64 modules at a time.
    static func lowestPenalty(_ base: QRMatrix, level: QRErrorCorrectionLevel) -> Int {
        let n = base.size
        guard n + 11 <= BitLine.capacity else { return 0 }
        // Six regions of n lines: base rows, base columns, function rows, function columns, scratch rows and
        // scratch columns. Function lines also cover the bits past n, so the mask never sets those.
        var lines = [BitLine](repeating: BitLine(), count: 6 * n)
        let outside = ~BitLine.first(n)
        return lines.withUnsafeMutableBufferPointer { lines in
            base.modules.withUnsafeBufferPointer { grid in
                base.isFunction.withUnsafeBufferPointer { function in
                    for i in 0..<n {
                        lines[i] = pack(grid, from: i * n, stride: 1, count: n)
                        lines[n + i] = pack(grid, from: i, stride: n, count: n)
                        lines[2 * n + i] = pack(function, from: i * n, stride: 1, count: n) | outside
                        lines[3 * n + i] = pack(function, from: i, stride: n, count: n) | outside
                    }
                }
            }
            var best = 0
            var bestScore = Int.max
            for reference in references {
                rowPatterns.withUnsafeBufferPointer { rowPatterns in
                    columnPatterns.withUnsafeBufferPointer { columnPatterns in
                        for i in 0..<n {
                            let rowMask = rowPatterns[reference &* 12 &+ i % 12]
                            let columnMask = columnPatterns[reference &* 6 &+ i % 6]
                            lines[4 * n + i] = lines[i] ^ (rowMask & ~lines[2 * n + i])
                            lines[5 * n + i] = lines[n + i] ^ (columnMask & ~lines[3 * n + i])
                        }
                    }
                }
                // The reserved format modules are light in the base grid: set the dark ones.
                let format = BCHCode.formatInformation(level: level, mask: reference)
                QRMatrix.forEachFormatModule(size: n) { x, y, bit in
                    if format >> bit & 1 == 1 {
                        lines[4 * n + y].set(x)
                        lines[5 * n + x].set(y)
                    }
                }
                let rows = UnsafeBufferPointer(rebasing: lines[(4 * n)..<(5 * n)])
                let columns = UnsafeBufferPointer(rebasing: lines[(5 * n)..<(6 * n)])
                let score = QRPenalty.score(rows: rows, columns: columns, size: n)
                if score < bestScore {
                    bestScore = score
                    best = reference
                }
            }
            return best
        }
    }

    /// `count` bytes (0 or 1) from `start`, `stride` apart, as bits.
    @inline(__always)
    private static func pack(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, stride: Int, count: Int) -> BitLine {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var index = start
        for p in 0..<count {
            let bit = UInt64(bytes[index] & 1) << UInt64(p & 63)
            switch p >> 6 {
            case 0: words.0 |= bit
            case 1: words.1 |= bit
            default: words.2 |= bit
            }
            index &+= stride
        }
        return BitLine(words.0, words.1, words.2)
    }
}
