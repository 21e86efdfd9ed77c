import Testing

@testable import TesseraQR

@Suite("Byte-mode data codewords and interleaving (ISO/IEC 18004 §7.4.5, §7.4.10, §7.6)")
struct DataEncodingTests {
    /// "hello" at 1-M worked out by hand: 0100 | 00000101 | 68 65 6C 6C 6F | 0000, then pad codewords.
    @Test("Mode, count, bytes, terminator and pad codewords")
    func helloCodewords() {
        let words = QRCodewords.dataCodewords(Array("hello".utf8), version: 1, level: .medium)
        #expect(words == [0x40, 0x56, 0x86, 0x56, 0xC6, 0xC6, 0xF0, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC])
    }

    /// From version 10 the count indicator has 16 bits.
    @Test("16-bit character count from version 10")
    func sixteenBitCount() {
        let words = QRCodewords.dataCodewords([0xAB], version: 10, level: .high)
        #expect(Array(words.prefix(5)) == [0x40, 0x00, 0x1A, 0xB0, 0xEC])
        #expect(words.count == QRVersionTable.dataCodewords(10, .high))
    }

    /// At the byte capacity of 1-H the 4-bit terminator just fills the last codeword and no pad follows.
    @Test("Full capacity: terminator ends the last codeword, no pad")
    func fullCapacity() {
        let bytes = [UInt8](repeating: 0xFF, count: QRVersionTable.byteCapacity(1, .high))  // 7 bytes
        let words = QRCodewords.dataCodewords(bytes, version: 1, level: .high)
        #expect(words == [0x40, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0])
    }

    /// 5-Q has two blocks of 15 data codewords then two of 16: the interleaved sequence takes data codeword i
    /// of each block in turn, the 16th codewords of the long blocks after that, then the error correction
    /// codewords likewise (§7.6, Figure 15 uses this very version).
    @Test("Interleaving of 5-Q")
    func interleaving() {
        let data = (0..<62).map { UInt8($0) }
        let sequence = QRCodewords.interleaved(data: data, version: 5, level: .quartile)
        #expect(sequence.count == 134)
        // Blocks: 0–14, 15–29, 30–45, 46–61.
        #expect(Array(sequence.prefix(8)) == [0, 15, 30, 46, 1, 16, 31, 47])
        #expect(Array(sequence[56..<62]) == [14, 29, 44, 60, 45, 61])
        let rs = ReedSolomon(degree: 18)
        let blocks = [Array(data[0..<15]), Array(data[15..<30]), Array(data[30..<46]), Array(data[46..<62])]
        let ecc = blocks.map { rs.remainder(of: $0) }
        for i in 0..<18 {
            for b in 0..<4 { #expect(sequence[62 + i * 4 + b] == ecc[b][i]) }
        }
    }
}
