/// The checksums a PNG file carries.
enum Checksums {
    /// CRC-32 (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320) as PNG §5.5 uses for each chunk.
    static func crc32(_ bytes: UnsafeBufferPointer<UInt8>, initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        crcTable.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    static func crc32(_ bytes: [UInt8], initial: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBufferPointer { crc32($0, initial: initial) }
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Adler-32 (RFC 1950 §8.2), the check value that ends a zlib stream.
    static func adler32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        // 5552 is the largest run for which b cannot overflow 32 bits before the reduction (RFC 1950 §9).
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)
            for i in index..<end {
                a &+= UInt32(bytes[i])
                b &+= a
            }
            a %= 65521
            b %= 65521
            index = end
        }
        return b << 16 | a
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBufferPointer { adler32($0) } }
}
