import Testing

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

    @Test("Penalty rules on small grids and lines")
    func penaltyRules() {
        // 5×5 all light: N1 3 per row and column (30), N2 16 blocks (48), N4 0 % dark is 10 steps (100).
        let light = [UInt8](repeating: 0, count: 25)
        #expect(light.withUnsafeBufferPointer { QRMask.penalty(of: $0, size: 5) } == 178)
        // A 4×4 checkerboard: no runs, no blocks, 50 % dark.
        let checker: [UInt8] = (0..<16).map { UInt8(($0 / 4 + $0 % 4) % 2) }
        #expect(checker.withUnsafeBufferPointer { QRMask.penalty(of: $0, size: 4) } == 0)

        func line(_ modules: [UInt8]) -> Int {
            modules.withUnsafeBufferPointer { QRMask.linePenalty($0, start: 0, stride: 1, count: modules.count) }
        }
        #expect(line([1, 0, 1, 1, 1, 0, 1]) == 40)  // light beyond both edges: one pattern, counted once
        #expect(line([0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0]) == 40)
        #expect(line([1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 1]) == 0)  // no light margin on either side
        #expect(line([1, 1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1]) == 40)  // light after only
        #expect(line([1, 1, 1, 1, 1, 1, 0]) == 4)  // N1: a run of 6 scores 3 + 1
        #expect(line([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]) == 3 + 5)
    }
}
