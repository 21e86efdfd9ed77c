import Foundation
import Testing
import TesseraCore
import TesseraTestSupport

@testable import TesseraQR

/// Independent decoding: every version at every level, filled to its byte capacity, rendered as PNG and read
/// back by zxing-cpp (Fixtures/zxing_peer.py, one Python run for the whole batch).
@Suite("zxing-cpp decodes every version and level")
struct ZXingDecodeTests {
    struct Case {
        let name: String
        let payload: [UInt8]
        let code: QRCode
    }

    static let scale = 4
    static let quietZone = 4

    /// Seeded payloads: random bytes for even versions, mixed UTF-8 text (cut to the byte capacity) for odd ones.
    static func payload(version: Int, level: QRErrorCorrectionLevel, capacity: Int) -> [UInt8] {
        let random = SeededRandomSource(seed: UInt64(version * 4 + level.formatIndicator))
        if version % 2 == 0 { return [UInt8](random.bytes(capacity)) }
        let words = ["mdoc:", "openid4vp://", "Grüße", "€", "𝔔ℜ", "ISO/IEC 18004", "日本語", " ", "%2F", "?a=b&c=d"]
        var generator = random.generator
        var text: [UInt8] = []
        while text.count < capacity {
            text += Array(words.randomElement(using: &generator)?.utf8 ?? "x".utf8)
        }
        return Array(text.prefix(capacity))
    }

    static func cases() throws -> [Case] {
        var cases: [Case] = []
        for version in 1...40 {
            for level in QRErrorCorrectionLevel.allCases {
                let capacity = try QRCode.byteCapacity(version: version, level: level)
                let payload = payload(version: version, level: level, capacity: capacity)
                let code = try QRCode.encode(payload, level: level)
                cases.append(Case(name: "v\(version)-\(level.letter)", payload: payload, code: code))
            }
        }
        // Every mask, forced, at a small version and at one with version information and two block groups.
        for (version, level) in [(2, QRErrorCorrectionLevel.low), (9, .quartile)] {
            let capacity = try QRCode.byteCapacity(version: version, level: level)
            let payload = [UInt8](SeededRandomSource(seed: UInt64(1000 + version)).bytes(capacity - 3))
            for mask in 0...7 {
                let code = try QRCode.encode(payload, level: level, version: version, mask: mask)
                cases.append(Case(name: "v\(version)-\(level.letter)-mask\(mask)", payload: payload, code: code))
            }
        }
        return cases
    }

    @Test("160 version/level cases and 16 forced masks decode to the input bytes")
    func decodeAll() throws {
        let cases = try Self.cases()
        #expect(cases.count == 176)
        // Filling the capacity must land exactly on the version it was computed for.
        for (index, c) in cases.prefix(160).enumerated() {
            #expect(c.code.version == index / 4 + 1, "\(c.name) chose version \(c.code.version)")
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var entries: [ZXingPeer.Entry] = []
        for c in cases {
            let file = directory.url.appendingPathComponent("\(c.name).png")
            try c.code.pngData(scale: Self.scale, quietZone: Self.quietZone).write(to: file)
            entries.append(.init(file: file.path, size: c.code.size, scale: Self.scale, quietZone: Self.quietZone))
        }
        let results = try #require(try ZXingPeer.decode(entries))
        try #require(results.count == cases.count)
        var failures: [String] = []
        for (c, result) in zip(cases, results) {
            let side = (c.code.size + 2 * Self.quietZone) * Self.scale
            var problems: [String] = []
            if !result.ok { problems.append("not decoded: \(result.error ?? "?")") }
            if result.bytes_hex != Hex.encode(c.payload) { problems.append("bytes differ") }
            if result.version != c.code.version { problems.append("version \(result.version ?? -1)") }
            if result.level != String(c.code.level.letter) { problems.append("level \(result.level ?? "?")") }
            if result.mask != c.code.mask { problems.append("mask \(result.mask ?? -1) != \(c.code.mask)") }
            if result.width != side || result.height != side { problems.append("dimensions") }
            if result.mode != "1" { problems.append("mode \(result.mode ?? "?")") }
            if result.chunks != ["IHDR", "IDAT", "IEND"] { problems.append("chunks \(result.chunks ?? [])") }
            if result.quiet_zone_light != true { problems.append("quiet zone not light") }
            let expectedModules = String(
                (0..<(c.code.size * c.code.size)).map { c.code.isDark(x: $0 % c.code.size, y: $0 / c.code.size) ? "1" : "0" })
            if result.modules != expectedModules { problems.append("pixels do not match the modules") }
            if !problems.isEmpty { failures.append("\(c.name): \(problems.joined(separator: ", "))") }
        }
        #expect(failures.isEmpty, "\(failures.count) failed: \(failures.prefix(10).joined(separator: "; "))")
    }
}
