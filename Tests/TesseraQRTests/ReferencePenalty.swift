/// A plain, module-by-module reading of ISO/IEC 18004:2015 §7.8.3 (Table 11), kept in the tests to check the
/// packed implementation the library uses (QRPenalty) against it.
enum ReferencePenalty {
    static func score(_ grid: [UInt8], size n: Int) -> Int {
        func at(_ x: Int, _ y: Int) -> UInt8 { x < 0 || y < 0 || x >= n || y >= n ? 0 : grid[y * n + x] }
        var lines: [[UInt8]] = []
        for y in 0..<n { lines.append((0..<n).map { at($0, y) }) }
        for x in 0..<n { lines.append((0..<n).map { at(x, $0) }) }
        var score = lines.reduce(0) { $0 + runs($1) + finderLike($1) }
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) {
                let c = at(x, y)
                if at(x + 1, y) == c && at(x, y + 1) == c && at(x + 1, y + 1) == c { score += 3 }
            }
        }
        let dark = grid.reduce(0) { $0 + Int($1) }
        let percent = Double(dark) * 100 / Double(n * n)
        score += 10 * Int((abs(percent - 50) / 5).rounded(.down))
        return score
    }

    /// N1: 3 + (length − 5) for each run of at least 5.
    static func runs(_ line: [UInt8]) -> Int {
        var score = 0
        var start = 0
        for end in 1...line.count where end == line.count || line[end] != line[start] {
            let length = end - start
            if length >= 5 { score += 3 + length - 5 }
            start = end
        }
        return score
    }

    /// N3: 40 for each 1:1:3:1:1 pattern with 4 light modules (or the quiet zone) on at least one side.
    static func finderLike(_ line: [UInt8]) -> Int {
        let padded = [UInt8](repeating: 0, count: 4) + line + [UInt8](repeating: 0, count: 4)
        let pattern: [UInt8] = [1, 0, 1, 1, 1, 0, 1]
        var score = 0
        for start in stride(from: 0, through: line.count - 7, by: 1) where Array(padded[(start + 4)..<(start + 11)]) == pattern {
            let p = start + 4
            let before = padded[(p - 4)..<p].allSatisfy { $0 == 0 }
            let after = padded[(p + 7)..<(p + 11)].allSatisfy { $0 == 0 }
            if before || after { score += 40 }
        }
        return score
    }
}
