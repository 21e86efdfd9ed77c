import Foundation
import Testing
import TesseraTestSupport

@testable import TesseraQR

@Suite("Renderers: terminal, SVG, PNG")
struct RendererTests {
    static func code() throws -> QRCode { try QRCode.encode("tessera", level: .medium) }

    /// Reads a terminal rendering back into painted pixels (true where a half block is drawn).
    static func paintedPixels(_ text: String) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            var top: [Bool] = []
            var bottom: [Bool] = []
            for c in line {
                top.append(c == "█" || c == "▀")
                bottom.append(c == "█" || c == "▄")
            }
            rows.append(top)
            rows.append(bottom)
        }
        return rows
    }

    @Test("Terminal: line count, width, quiet zone and modules")
    func terminal() throws {
        let code = try Self.code()
        #expect(code.version == 1)
        let text = code.terminalString()
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        #expect(lines.count == 13)  // 21 + 2·2 = 25 module rows, two per line
        #expect(lines.allSatisfy { $0.count == 25 })
        #expect(lines.allSatisfy { $0.allSatisfy { " ▀▄█".contains($0) } })
        #expect(lines[0].allSatisfy { $0 == " " })  // two rows of quiet zone
        let pixels = Self.paintedPixels(text)
        for y in 0..<25 {
            for x in 0..<25 {
                #expect(pixels[y][x] == code.isDark(x: x - 2, y: y - 2), "(\(x),\(y))")
            }
        }
        #expect(pixels[25].allSatisfy { !$0 })  // half row below the image stays blank
        // Symbol rows 0 and 1 after two quiet columns: the finder's top edge over its sides, then the separator.
        #expect(lines[1].prefix(10) == "  █▀▀▀▀▀█ ")
    }

    @Test("Terminal inverted draws the light modules and quiet zone")
    func terminalInverted() throws {
        let code = try Self.code()
        let text = code.terminalString(quietZone: 1, inverted: true)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 12)  // 23 rows
        #expect(lines.allSatisfy { $0.count == 23 })
        let pixels = Self.paintedPixels(text)
        for y in 0..<23 {
            for x in 0..<23 { #expect(pixels[y][x] == !code.isDark(x: x - 1, y: y - 1)) }
        }
        #expect(lines[11].allSatisfy { $0 == "▀" })  // last quiet row light, nothing below it
    }

    @Test("Terminal quiet zone 0 and clamping")
    func terminalQuietZone() throws {
        let code = try Self.code()
        #expect(code.terminalString(quietZone: 0).split(separator: "\n").count == 11)
        #expect(code.terminalString(quietZone: -5) == code.terminalString(quietZone: 0))
        #expect(code.terminalString(quietZone: 1000) == code.terminalString(quietZone: 64))
    }

    @Test("SVG: one path that redraws exactly the dark modules")
    func svg() throws {
        let code = try QRCode.encode(Array("openid4vp://?request_uri=https%3A%2F%2Fv.example%2Fr".utf8), level: .quartile)
        let svg = code.svgString(scale: 5, quietZone: 4)
        let side = code.size + 8
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(side * 5)\" height=\"\(side * 5)\""))
        #expect(svg.contains("viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("shape-rendering=\"crispEdges\""))
        #expect(svg.components(separatedBy: "<path").count == 2)
        let d = try #require(svg.components(separatedBy: " d=\"").last?.components(separatedBy: "\"").first)
        // Each run is "M{x} {y}h{w}v1h-{w}z".
        var grid = [[Bool]](repeating: [Bool](repeating: false, count: side), count: side)
        for run in d.split(separator: "z") {
            let numbers = run.split(whereSeparator: { "Mhv -".contains($0) }).compactMap { Int($0) }
            try #require(numbers.count == 5, "run \(run)")
            let (x, y, w) = (numbers[0], numbers[1], numbers[2])
            #expect(numbers[3] == 1 && numbers[4] == w)
            for i in x..<(x + w) { grid[y][i] = true }
        }
        for y in 0..<side {
            for x in 0..<side { #expect(grid[y][x] == code.isDark(x: x - 4, y: y - 4)) }
        }
    }

    @Test("CRC-32 and Adler-32 check values")
    func checksums() {
        #expect(Checksums.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksums.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(Checksums.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Checksums.adler32([]) == 1)
        // Past the 5552-byte reduction block.
        let long = [UInt8](repeating: 0xFF, count: 20_000)
        var a = 1
        var b = 0
        for byte in long {
            a = (a + Int(byte)) % 65521
            b = (b + a) % 65521
        }
        #expect(Checksums.adler32(long) == UInt32(b << 16 | a))
    }

    @Test("PNG: signature, IHDR, chunk CRCs")
    func pngStructure() throws {
        let code = try Self.code()
        let png = [UInt8](code.pngData(scale: 3, quietZone: 4))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var position = 8
        var types: [String] = []
        while position + 12 <= png.count {
            let length = png[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[(position + 4)..<(position + 8)], as: UTF8.self)
            let body = Array(png[(position + 8)..<(position + 8 + length)])
            let crc = png[(position + 8 + length)..<(position + 12 + length)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(Checksums.crc32(Array(png[(position + 4)..<(position + 8 + length)])) == crc, "\(type) CRC")
            if type == "IHDR" {
                let side = UInt8((21 + 8) * 3)
                #expect(body == [0, 0, 0, side, 0, 0, 0, side, 1, 0, 0, 0, 0])
            }
            if type == "IDAT" { #expect(Array(body.prefix(2)) == [0x78, 0x01]) }
            types.append(type)
            position += 12 + length
        }
        #expect(position == png.count)
        #expect(types == ["IHDR", "IDAT", "IEND"])
        #expect(code.pngData(scale: 0, quietZone: -1) == code.pngData(scale: 1, quietZone: 0))
    }

    @Test("PNG of version 40 stays small thanks to the row and run matches")
    func pngCompression() throws {
        let code = try QRCode.encode([UInt8](repeating: 0x5A, count: 2900), level: .low)
        #expect(code.version == 40)
        let png = code.pngData(scale: 8, quietZone: 4)
        let raw = (185 * 8) * ((185 * 8 + 7) / 8 + 1)
        #expect(png.count < raw / 8, "PNG \(png.count) bytes for \(raw) raw")
    }
}
