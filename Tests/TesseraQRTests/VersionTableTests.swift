import Testing

@testable import TesseraQR

@Suite("Version and capacity tables (ISO/IEC 18004 Tables 7 and 9, Annex E)")
struct VersionTableTests {
    @Test("Byte-mode capacities of Table 7")
    func byteCapacities() throws {
        let expected: [(Int, QRErrorCorrectionLevel, Int)] = [
            (1, .low, 17), (1, .medium, 14), (1, .quartile, 11), (1, .high, 7),
            (2, .medium, 26), (5, .quartile, 60), (7, .high, 64), (9, .medium, 180),
            (10, .low, 271), (10, .medium, 213), (10, .quartile, 151), (10, .high, 119),
            (27, .high, 625), (40, .low, 2953), (40, .medium, 2331), (40, .quartile, 1663), (40, .high, 1273),
        ]
        for (version, level, bytes) in expected {
            #expect(try QRCode.byteCapacity(version: version, level: level) == bytes, "\(version)-\(level.letter)")
        }
    }

    @Test("Total codewords of Table 7")
    func totalCodewords() {
        let expected = [1: 26, 2: 44, 6: 172, 7: 196, 14: 581, 21: 1156, 32: 2465, 40: 3706]
        for (version, total) in expected { #expect(QRVersionTable.totalCodewords(version) == total, "version \(version)") }
    }

    @Test("Alignment pattern centres of Annex E")
    func alignmentCentres() {
        #expect(QRVersionTable.alignmentCentres(1) == [])
        #expect(QRVersionTable.alignmentCentres(2) == [6, 18])
        #expect(QRVersionTable.alignmentCentres(7) == [6, 22, 38])
        #expect(QRVersionTable.alignmentCentres(15) == [6, 26, 48, 70])
        #expect(QRVersionTable.alignmentCentres(32) == [6, 34, 60, 86, 112, 138])
        #expect(QRVersionTable.alignmentCentres(36) == [6, 24, 50, 76, 102, 128, 154])
        #expect(QRVersionTable.alignmentCentres(40) == [6, 30, 58, 86, 114, 142, 170])
    }

    /// The data-module count computed from the pattern sizes equals the modules the matrix leaves free once
    /// every function pattern is drawn, for every version.
    @Test("Free modules of the built matrix match the computed data-module count")
    func dataModulesMatchMatrix() {
        for version in 1...40 {
            let matrix = QRMatrix(version: version)
            let free = matrix.isFunction.lazy.filter { $0 == 0 }.count
            #expect(free == QRVersionTable.dataModules(version), "version \(version)")
            // Remainder bits (Table 1): 0, 7, 4, 3 or 0 depending on the version.
            let remainder = QRVersionTable.dataModules(version) % 8
            let expected = version == 1 ? 0 : version <= 6 ? 7 : version <= 13 ? 0 : version <= 20 ? 3
                : version <= 27 ? 4 : version <= 34 ? 3 : 0
            #expect(remainder == expected, "remainder bits of version \(version)")
        }
    }

    @Test("Blocks split the data codewords as in Table 9")
    func blockStructure() {
        // 5-Q: 2 blocks of (33, 15) and 2 of (34, 16).
        #expect(QRVersionTable.blocks(5, .quartile) == 4)
        #expect(QRVersionTable.eccCodewordsPerBlock(5, .quartile) == 18)
        #expect(QRVersionTable.dataCodewords(5, .quartile) == 62)
        // 40-H: 20 blocks of (45, 15) and 61 of (46, 16).
        #expect(QRVersionTable.blocks(40, .high) == 81)
        #expect(QRVersionTable.dataCodewords(40, .high) == 20 * 15 + 61 * 16)
    }
}
