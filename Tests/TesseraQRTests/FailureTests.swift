import Testing

@testable import TesseraQR

@Suite("Typed errors")
struct FailureTests {
    @Test("Too much data for version 40-H")
    func tooLongForVersion40() {
        let bytes = [UInt8](repeating: 0x61, count: 1274)
        #expect(throws: QRError.dataTooLong(byteCount: 1274, capacity: 1273, version: 40, level: .high)) {
            try QRCode.encode(bytes, level: .high)
        }
        // One byte less fits, in version 40.
        #expect((try? QRCode.encode(bytes.dropLast(), level: .high))?.version == 40)
    }

    @Test("Too much text for version 40-L")
    func textTooLong() {
        let text = String(repeating: "é", count: 1477)  // 2954 UTF-8 bytes
        #expect(throws: QRError.dataTooLong(byteCount: 2954, capacity: 2953, version: 40, level: .low)) {
            try QRCode.encode(text, level: .low)
        }
    }

    @Test("Forced version too small")
    func forcedVersionTooSmall() {
        let bytes = [UInt8](repeating: 0x30, count: 15)
        #expect(throws: QRError.dataTooLong(byteCount: 15, capacity: 14, version: 1, level: .medium)) {
            try QRCode.encode(bytes, level: .medium, version: 1)
        }
        #expect((try? QRCode.encode(bytes, level: .medium, version: 2))?.version == 2)
    }

    @Test("Forced version out of range", arguments: [0, -1, 41, Int.max, Int.min])
    func versionOutOfRange(version: Int) {
        #expect(throws: QRError.versionOutOfRange(version)) { try QRCode.encode([0x41], version: version) }
        #expect(throws: QRError.versionOutOfRange(version)) {
            try QRCode.byteCapacity(version: version, level: .low)
        }
    }

    @Test("Mask number out of range", arguments: [-1, 8, 100, Int.min])
    func maskOutOfRange(mask: Int) {
        #expect(throws: QRError.maskOutOfRange(mask)) { try QRCode.encode([0x41], mask: mask) }
    }

    @Test("Empty data encodes in version 1")
    func emptyData() throws {
        let code = try QRCode.encode([UInt8](), level: .high)
        #expect(code.version == 1)
        #expect(code.size == 21)
    }

    @Test("isDark outside the symbol is light, never a trap")
    func outOfRangeModules() throws {
        let code = try QRCode.encode("tessera")
        #expect(code.isDark(x: 0, y: 0))  // finder corner
        for (x, y) in [(-1, 0), (0, -1), (code.size, 0), (0, code.size), (Int.min, Int.max), (Int.max, Int.min)] {
            #expect(!code.isDark(x: x, y: y))
        }
    }
}
