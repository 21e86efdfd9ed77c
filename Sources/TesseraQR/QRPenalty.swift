/// The §7.8.3 penalty score (ISO/IEC 18004:2015 Table 11) computed on packed rows and columns, all modules
/// of a line at once, so that the random data modules cause no unpredictable branches:
///
/// - N1: 3 + k for each run of 5 + k same-colour modules in a row or column;
/// - N2: 3 for each 2×2 block of one colour (blocks may overlap);
/// - N3: 40 for each dark-light-dark-dark-dark-light-dark (1:1:3:1:1) pattern in a row or column with 4 light
///   modules before or after it, counted once; modules outside the symbol are light (quiet zone);
/// - N4: 10 for each full 5 % by which the share of dark modules departs from 50 %.
enum QRPenalty {
    /// The penalty of a symbol given as `n` rows and the same modules as `n` columns (bits past `n` clear).
    static func score(rows: UnsafeBufferPointer<BitLine>, columns: UnsafeBufferPointer<BitLine>, size n: Int) -> Int {
        let pairs = BitLine.first(n - 1)  // positions p with a module p + 1
        var score = 0
        var dark = 0
        var previous = BitLine()
        for i in 0..<n {
            let row = rows[i]
            score &+= line(row, pairs: pairs)
            score &+= line(columns[i], pairs: pairs)
            dark &+= row.popcount
            if i > 0 {
                // N2: vertical pairs equal at p and p + 1, and the upper pair equal horizontally.
                let vertical = ~(row ^ previous)
                let horizontal = ~(previous ^ previous.ahead(1))
                score &+= 3 &* (vertical & vertical.ahead(1) & horizontal & pairs).popcount
            }
            previous = row
        }
        let total = n * n
        return score + 10 * (abs(dark * 20 - total * 10) / total)
    }

    /// N1 and N3 of one line.
    @inline(__always)
    static func line(_ x: BitLine, pairs: BitLine) -> Int {
        // N1: `run5` marks each p whose modules p...p+4 share a colour; a run of 5 + k marks 1 + k positions
        // in a row, so the run scores the marks plus 2 for its first mark.
        let same = ~(x ^ x.ahead(1)) & pairs
        let run5 = same & same.ahead(1) & same.ahead(2) & same.ahead(3)
        let firsts = run5 & ~run5.behind(1)
        var score = run5.popcount &+ 2 &* firsts.popcount
        // N3: the pattern starting at p, with 4 light modules before it or after it.
        let light = ~x
        let pattern = x & light.ahead(1) & x.ahead(2) & x.ahead(3) & x.ahead(4) & light.ahead(5) & x.ahead(6)
        let lightBefore = ~(x.behind(1) | x.behind(2) | x.behind(3) | x.behind(4))
        let lightAfter = ~(x.ahead(7) | x.ahead(8) | x.ahead(9) | x.ahead(10))
        score &+= 40 &* (pattern & (lightBefore | lightAfter)).popcount
        return score
    }

    /// Packs a row-major byte grid (1 dark) into rows and columns and scores it.
    static func score(of modules: UnsafeBufferPointer<UInt8>, size n: Int) -> Int {
        guard n > 0, n <= BitLine.capacity - 11, modules.count >= n * n else { return 0 }
        var rows = [BitLine](repeating: BitLine(), count: n)
        var columns = [BitLine](repeating: BitLine(), count: n)
        for i in 0..<n {
            for j in 0..<n where modules[i * n + j] != 0 {
                rows[i].set(j)
                columns[j].set(i)
            }
        }
        return rows.withUnsafeBufferPointer { r in
            columns.withUnsafeBufferPointer { c in score(rows: r, columns: c, size: n) }
        }
    }
}
