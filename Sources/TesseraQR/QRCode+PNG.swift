import Foundation

extension QRCode {
    /// The symbol as a PNG image (ISO/IEC 15948): 1-bit grayscale, not interlaced, dark modules black (0),
    /// light modules and the quiet zone white (1); the IDAT zlib stream uses fixed Huffman codes.
    ///
    /// - Parameters:
    ///   - scale: pixels per module, clamped to 1...64.
    ///   - quietZone: light modules on each side, clamped to 0...64 (ISO/IEC 18004:2015 §6.3.8 asks for 4).
    /// - Returns: a complete PNG file, `(size + 2·quietZone)·scale` pixels square.
    public func pngData(scale: Int = 8, quietZone: Int = 4) -> Data {
        let unit = QRRenderLimits.scale(scale)
        let quiet = QRRenderLimits.quietZone(quietZone)
        let pixels = (size + 2 * quiet) * unit
        let rowBytes = (pixels + 7) / 8
        let stride = rowBytes + 1  // filter type byte, then the pixels
        var raw = [UInt8](repeating: 0, count: stride * pixels)
        raw.withUnsafeMutableBufferPointer { image in
            for py in 0..<pixels {
                let row = py * stride
                if py % unit != 0 {
                    // Same module row as the scanline above: copy it (filter byte included).
                    for i in 0..<stride { image[row + i] = image[row - stride + i] }
                    continue
                }
                image[row] = 0  // filter type None (PNG §9.2)
                let my = py / unit - quiet
                for px in 0..<pixels where !isDark(x: px / unit - quiet, y: my) {
                    image[row + 1 + px >> 3] |= 0x80 >> UInt8(px & 7)
                }
                // Padding bits after the last pixel stay 0 (PNG §7.2 leaves them unused).
            }
        }
        var png = PNGWriter()
        png.signature()
        var header = [UInt8]()
        header.reserveCapacity(13)
        PNGWriter.appendBigEndian(UInt32(pixels), to: &header)  // width
        PNGWriter.appendBigEndian(UInt32(pixels), to: &header)  // height
        header += [1, 0, 0, 0, 0]  // bit depth 1, colour type 0 (greyscale), deflate, adaptive filters, no interlace
        png.chunk("IHDR", header)
        png.chunk("IDAT", Deflate.zlib(raw, rowStride: stride))
        png.chunk("IEND", [])
        return Data(png.bytes)
    }
}

/// Writes the PNG signature and chunks (PNG §5.2, §5.3): length, type, data, CRC-32 of type and data.
struct PNGWriter {
    private(set) var bytes: [UInt8] = []

    mutating func signature() {
        bytes += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    }

    mutating func chunk(_ type: StaticString, _ data: [UInt8]) {
        Self.appendBigEndian(UInt32(data.count), to: &bytes)
        let typeStart = bytes.count
        type.withUTF8Buffer { bytes += $0 }
        bytes += data
        let crc = bytes.withUnsafeBufferPointer { all in
            Checksums.crc32(UnsafeBufferPointer(rebasing: all[typeStart...]))
        }
        Self.appendBigEndian(crc, to: &bytes)
    }

    static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
