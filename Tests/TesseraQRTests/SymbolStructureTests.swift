import Testing
import TesseraCore

@testable import TesseraQR

@Suite("Function patterns, format placement and masking (ISO/IEC 18004 §6.3, §7.8, §7.9)")
struct SymbolStructureTests {
    static func formatBitsTopLeft(_ code: QRCode) -> Int {
        var bits = 0
        func take(_ x: Int, _ y: Int, _ i: Int) { if code.isDark(x: x, y: y) { bits |= 1 << i } }
        for i in 0..<6 { take(8, i, i) }
        take(8, 7, 6)
        take(8, 8, 7)
        take(7, 8, 8)
        for i in 9..<15 { take(14 - i, 8, i) }
        return bits
    }

    static func formatBitsSecondCopy(_ code: QRCode) -> Int {
        var bits = 0
        let n = code.size
        for i in 0..<8 where code.isDark(x: n - 1 - i, y: 8) { bits |= 1 << i }
        for i in 8..<15 where code.isDark(x: 8, y: n - 15 + i) { bits |= 1 << i }
        return bits
    }

    @Test("Finders, separators, timing and the dark module", arguments: [1, 2, 7, 21, 40])
    func functionPatterns(version: Int) throws {
        let code = try QRCode.encode([UInt8](repeating: 0x55, count: 3), level: .low, version: version)
        let n = code.size
        #expect(n == 17 + 4 * version)
        for (fx, fy) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            for dy in 0..<7 {
                for dx in 0..<7 {
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code.isDark(x: fx + dx, y: fy + dy) == (ring != 2), "finder at \(fx),\(fy)")
                }
            }
        }
        for i in 0..<8 {  // separators
            #expect(!code.isDark(x: 7, y: i) && !code.isDark(x: i, y: 7))
            #expect(!code.isDark(x: n - 8, y: i) && !code.isDark(x: n - 1 - i, y: 7))
            #expect(!code.isDark(x: 7, y: n - 1 - i) && !code.isDark(x: i, y: n - 8))
        }
        for i in 8..<(n - 8) {
            #expect(code.isDark(x: i, y: 6) == (i % 2 == 0))
            #expect(code.isDark(x: 6, y: i) == (i % 2 == 0))
        }
        #expect(code.isDark(x: 8, y: 4 * version + 9))
    }

    @Test("Both format information copies carry level and mask", arguments: QRErrorCorrectionLevel.allCases)
    func formatInformationPlacement(level: QRErrorCorrectionLevel) throws {
        for mask in 0...7 {
            let code = try QRCode.encode(Array("format".utf8), level: level, version: 3, mask: mask)
            let expected = BCHCode.formatInformation(level: level, mask: mask)
            #expect(Self.formatBitsTopLeft(code) == expected)
            #expect(Self.formatBitsSecondCopy(code) == expected)
        }
    }

    @Test("Version information blocks from version 7", arguments: [7, 8, 23, 40])
    func versionInformationPlacement(version: Int) throws {
        let code = try QRCode.encode([0x01], level: .medium, version: version)
        let n = code.size
        var lowerLeft = 0
        var upperRight = 0
        for i in 0..<18 {
            if code.isDark(x: i / 3, y: n - 11 + i % 3) { lowerLeft |= 1 << i }
            if code.isDark(x: n - 11 + i % 3, y: i / 3) { upperRight |= 1 << i }
        }
        #expect(lowerLeft == BCHCode.versionInformation(version: version))
        #expect(upperRight == lowerLeft)
    }

    @Test("The automatic mask has the lowest penalty of the eight")
    func automaticMaskIsLowestPenalty() throws {
        for (index, text) in ["mdoc:owBjMS4wAYIB2BhYS6QBAiABIVgg", "openid4vp://?request_uri=x", "A", "tessera"].enumerated() {
            let level = QRErrorCorrectionLevel.allCases[index % 4]
            let automatic = try QRCode.encode(text, level: level)
            let penalties = try (0...7).map {
                try QRCode.encode(Array(text.utf8), level: level, version: automatic.version, mask: $0).maskPenalty
            }
            #expect(automatic.maskPenalty == penalties.min())
            #expect(automatic.mask == penalties.firstIndex(of: penalties.min() ?? -1))
            // Different masks give different symbols.
            let symbols = try (0...7).map { try QRCode.encode(Array(text.utf8), level: level, mask: $0) }
            for i in 0..<8 {
                for j in (i + 1)..<8 { #expect(symbols[i] != symbols[j]) }
            }
        }
    }

    @Test("Mask patterns of Table 10 at sample modules")
    func maskPatterns() {
        // Row i, column j.
        #expect(QRMask.inverts(0, i: 0, j: 0) && !QRMask.inverts(0, i: 0, j: 1))
        #expect(QRMask.inverts(1, i: 2, j: 5) && !QRMask.inverts(1, i: 3, j: 5))
        #expect(QRMask.inverts(2, i: 1, j: 3) && !QRMask.inverts(2, i: 1, j: 4))
        #expect(QRMask.inverts(3, i: 1, j: 2) && !QRMask.inverts(3, i: 1, j: 1))
        #expect(QRMask.inverts(4, i: 1, j: 2) && !QRMask.inverts(4, i: 2, j: 0))
        #expect(QRMask.inverts(5, i: 0, j: 7) && !QRMask.inverts(5, i: 1, j: 1))
        #expect(QRMask.inverts(6, i: 1, j: 1) && !QRMask.inverts(6, i: 1, j: 3))
        #expect(QRMask.inverts(7, i: 0, j: 0) && !QRMask.inverts(7, i: 1, j: 0))
    }

    @Test("Applying a mask inverts exactly the non-function modules Table 10 selects", arguments: 0...7)
    func maskApplication(reference: Int) {
        for version in [1, 7] {
            let base = QRMatrix(version: version)
            var masked = base
            QRMask.apply(reference, to: &masked)
            let n = base.size
            for i in 0..<n {
                for j in 0..<n {
                    let k = i * n + j
                    let flipped = base.isFunction[k] == 0 && QRMask.inverts(reference, i: i, j: j)
                    #expect(masked.modules[k] == base.modules[k] ^ (flipped ? 1 : 0))
                }
            }
        }
    }

    /// The packed mask lines used to pick the mask hold exactly Table 10 over the largest symbol.
    @Test("Packed mask patterns match Table 10", arguments: 0...7)
    func packedMaskPatterns(reference: Int) {
        func bit(_ line: BitLine, _ p: Int) -> Bool {
            let word = p < 64 ? line.w0 : p < 128 ? line.w1 : line.w2
            return word >> UInt64(p % 64) & 1 == 1
        }
        var mismatches: [String] = []
        for k in 0..<177 {
            let row = QRMask.rowPatterns[reference * 12 + k % 12]
            let column = QRMask.columnPatterns[reference * 6 + k % 6]
            for p in 0..<177 {
                if bit(row, p) != QRMask.inverts(reference, i: k, j: p) { mismatches.append("row \(k) column \(p)") }
                if bit(column, p) != QRMask.inverts(reference, i: p, j: k) { mismatches.append("column \(k) row \(p)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }

    /// Rows and columns count alike: a grid and its transpose score the same.
    @Test("Penalty is symmetric under transposition")
    func penaltyTranspose() throws {
        let code = try QRCode.encode(Array("transpose me".utf8), level: .quartile, mask: 6)
        let n = code.size
        let grid = (0..<(n * n)).map { UInt8(code.isDark(x: $0 % n, y: $0 / n) ? 1 : 0) }
        let transposed = (0..<(n * n)).map { UInt8(code.isDark(x: $0 / n, y: $0 % n) ? 1 : 0) }
        let a = grid.withUnsafeBufferPointer { QRPenalty.score(of: $0, size: n) }
        let b = transposed.withUnsafeBufferPointer { QRPenalty.score(of: $0, size: n) }
        #expect(a == b)
        #expect(a == code.maskPenalty)
    }

    static func packed(_ grid: [UInt8], _ n: Int) -> Int { grid.withUnsafeBufferPointer { QRPenalty.score(of: $0, size: n) } }

    @Test("Penalty rules on small grids, packed and plain")
    func penaltyRules() {
        // 5×5 all light: N1 3 per row and column (30), N2 16 blocks (48), N4 0 % dark is 10 steps (100).
        let light = [UInt8](repeating: 0, count: 25)
        #expect(Self.packed(light, 5) == 178)
        #expect(ReferencePenalty.score(light, size: 5) == 178)
        // A 4×4 checkerboard: no runs, no blocks, 50 % dark.
        let checker: [UInt8] = (0..<16).map { UInt8(($0 / 4 + $0 % 4) % 2) }
        #expect(Self.packed(checker, 4) == 0)

        // Single rows padded to square grids by light rows would add N1/N2/N4, so test lines directly.
        let pairs = { (n: Int) in BitLine.first(n - 1) }
        func line(_ modules: [UInt8]) -> Int {
            var bits = BitLine()
            for (p, c) in modules.enumerated() where c == 1 { bits.set(p) }
            let packed = QRPenalty.line(bits, pairs: pairs(modules.count))
            #expect(packed == ReferencePenalty.runs(modules) + ReferencePenalty.finderLike(modules), "\(modules)")
            return packed
        }
        #expect(line([1, 0, 1, 1, 1, 0, 1]) == 40)  // light beyond both edges: one pattern, counted once
        #expect(line([0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0]) == 40)
        #expect(line([1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1]) == 0)  // no light margin on either side
        #expect(line([1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1]) == 40)  // light after only
        #expect(line([1, 1, 1, 1, 1, 1, 0]) == 4)  // N1: a run of 6 scores 3 + 1
        #expect(line([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]) == 3 + 5)
        #expect(line([1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1]) == 80)  // two patterns share the gap
        var long = [UInt8](repeating: 1, count: 177)  // version 40 width, across all three words
        long[70] = 0
        #expect(line(long) == (3 + 65) + (3 + 101))
    }

    @Test("Packed penalty equals the plain reading of Table 11 on random grids")
    func penaltyAgainstReference() {
        let random = SeededRandomSource(seed: 77)
        for n in [21, 25, 45, 63, 64, 65, 66, 101, 127, 128, 129, 177] {
            for density in [1, 2, 3] {  // sparse, even and dense grids
                let grid = random.bytes(n * n).map { UInt8($0 % 4 < density ? 1 : 0) }
                #expect(Self.packed(grid, n) == ReferencePenalty.score(grid, size: n), "size \(n), density \(density)")
            }
        }
    }

    @Test("Automatic mask agrees with the plain penalty of all eight symbols", arguments: [1, 6, 14, 27, 40])
    func maskChoiceAgainstReference(version: Int) throws {
        let capacity = try QRCode.byteCapacity(version: version, level: .medium)
        let payload = [UInt8](SeededRandomSource(seed: UInt64(version)).bytes(capacity / 2))
        let automatic = try QRCode.encode(payload, level: .medium, version: version)
        var scores: [Int] = []
        for mask in 0...7 {
            let code = try QRCode.encode(payload, level: .medium, version: version, mask: mask)
            let n = code.size
            let grid = (0..<(n * n)).map { UInt8(code.isDark(x: $0 % n, y: $0 / n) ? 1 : 0) }
            scores.append(ReferencePenalty.score(grid, size: n))
            #expect(code.maskPenalty == scores[mask])
        }
        #expect(automatic.mask == scores.firstIndex(of: scores.min() ?? -1))
    }
}
