import Foundation
import Testing
import TesseraTestSupport

@testable import TesseraQR

/// Whole symbols compared module for module with python-qrcode's (Fixtures/reference-matrices.json, see its README).
@Suite("Reference matrices from an independent encoder (python-qrcode)")
struct KnownMatrixTests {
    struct Reference: Decodable {
        let name: String
        let data_hex: String
        let level: String
        let version: Int
        let mask: Int
        let rows: [String]
    }

    struct File: Decodable {
        let source: String
        let cases: [Reference]
    }

    static func references() throws -> [Reference] {
        try JSONDecoder().decode(File.self, from: Fixtures.data("reference-matrices.json")).cases
    }

    static func level(_ letter: String) throws -> QRErrorCorrectionLevel {
        try #require(QRErrorCorrectionLevel.allCases.first { String($0.letter) == letter })
    }

    @Test("Fixture holds the expected cases")
    func fixtureCases() throws {
        let names = try Self.references().map(\.name)
        #expect(names == ["mdoc-engagement-M", "openid4vp-Q-v12-mask5", "all-bytes-H-v18-mask3", "hello-L-v1-mask0"])
    }

    @Test("Forced version, level and mask give python-qrcode's matrix", arguments: 0..<4)
    func matrixMatches(index: Int) throws {
        let reference = try Self.references()[index]
        let data = try Data(hex: reference.data_hex)
        let code = try QRCode.encode(
            data, level: Self.level(reference.level), version: reference.version, mask: reference.mask)
        #expect(code.version == reference.version)
        #expect(code.mask == reference.mask)
        #expect(code.size == reference.rows.count)
        var differences: [String] = []
        for (y, row) in reference.rows.enumerated() {
            #expect(row.count == code.size)
            for (x, module) in row.utf8.enumerated() where (module == UInt8(ascii: "1")) != code.isDark(x: x, y: y) {
                differences.append("(\(x),\(y))")
            }
        }
        #expect(differences.isEmpty, "\(reference.name): \(differences.count) modules differ: \(differences.prefix(12))")
    }

    /// The mdoc case was made with python-qrcode's own version and mask choice; without forcing anything Tessera
    /// picks the same smallest version (the mask may differ: the N3 rule is counted differently by encoders).
    @Test("Automatic version choice agrees for the mdoc: engagement URI")
    func automaticVersion() throws {
        let reference = try Self.references()[0]
        let uri = String(decoding: try Data(hex: reference.data_hex), as: UTF8.self)
        #expect(uri.hasPrefix("mdoc:"))
        let code = try QRCode.encode(uri, level: .medium)
        #expect(code.version == reference.version)
        #expect(code == (try QRCode.encode(Array(uri.utf8), level: .medium, version: code.version, mask: code.mask)))
    }
}
