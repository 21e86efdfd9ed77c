/// A zlib stream (RFC 1950) holding one DEFLATE block with the fixed Huffman codes (RFC 1951 §3.2.6).
///
/// The matcher looks for repeats at two distances only, which is what a rendered QR Code is made of:
/// 1 (runs of one byte, within a row) and `rowStride` (the same scanline again, a module is `scale` rows tall).
enum Deflate {
    static func zlib(_ input: [UInt8], rowStride: Int) -> [UInt8] {
        var out = BitStream()
        out.bytes.reserveCapacity(input.count / 8 + 64)
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01: no dictionary, fastest, (CMF·256 + FLG) % 31 == 0.
        out.bytes.append(0x78)
        out.bytes.append(0x01)
        out.write(1, bits: 1)  // BFINAL
        out.write(0b01, bits: 2)  // BTYPE fixed Huffman
        input.withUnsafeBufferPointer { data in
            let distances = rowStride >= 1 && rowStride <= 32_768 && rowStride != 1 ? [1, rowStride] : [1]
            var position = 0
            while position < data.count {
                var bestLength = 0
                var bestDistance = 0
                for distance in distances where distance <= position {
                    let limit = min(258, data.count - position)
                    var length = 0
                    while length < limit && data[position + length] == data[position + length - distance] {
                        length += 1
                    }
                    if length > bestLength {
                        bestLength = length
                        bestDistance = distance
                    }
                }
                if bestLength >= 3 {
                    out.writeLength(bestLength)
                    out.writeDistance(bestDistance)
                    position += bestLength
                } else {
                    out.writeLiteral(Int(data[position]))
                    position += 1
                }
            }
            out.writeLiteral(256)  // end of block
            out.flushToByte()
            let adler = Checksums.adler32(data)
            for shift in [24, 16, 8, 0] { out.bytes.append(UInt8(truncatingIfNeeded: adler >> UInt32(shift))) }
        }
        return out.bytes
    }

    /// RFC 1951 §3.2.5: length codes 257...284 cover 3...257 in groups of four with 0...5 extra bits;
    /// code 285 is 258 alone.
    private static let lengthBase: [Int] = {
        var base = [Int](repeating: 0, count: 29)
        var value = 3
        for code in 0..<28 {
            base[code] = value
            value += 1 << lengthExtra[code]
        }
        base[28] = 258
        return base
    }()
    private static let lengthExtra: [Int] = (0..<29).map { $0 < 8 || $0 == 28 ? 0 : ($0 - 4) / 4 }

    /// Distance codes 0...29 cover 1...32768; codes 2k and 2k+1 (k ≥ 1) carry k − 1 extra bits.
    private static let distanceExtra: [Int] = (0..<30).map { $0 < 4 ? 0 : $0 / 2 - 1 }
    private static let distanceBase: [Int] = {
        var base = [Int](repeating: 0, count: 30)
        var value = 1
        for code in 0..<30 {
            base[code] = value
            value += 1 << distanceExtra[code]
        }
        return base
    }()

    /// The bit stream of RFC 1951 §3.1.1: fields packed from the least significant bit, Huffman codes from
    /// their most significant bit.
    struct BitStream {
        var bytes: [UInt8] = []
        private var buffer: UInt64 = 0
        private var count = 0

        mutating func write(_ value: Int, bits: Int) {
            buffer |= UInt64(value & ((1 << bits) - 1)) << UInt64(count)
            count += bits
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: buffer))
                buffer >>= 8
                count -= 8
            }
        }

        /// A Huffman code of `bits` bits, sent most significant bit first.
        mutating func writeCode(_ code: Int, bits: Int) {
            var reversed = 0
            for i in 0..<bits where code >> i & 1 == 1 { reversed |= 1 << (bits - 1 - i) }
            write(reversed, bits: bits)
        }

        /// §3.2.6 fixed literal/length code: 0–143 → 8 bits from 0x30, 144–255 → 9 bits from 0x190,
        /// 256–279 → 7 bits from 0, 280–287 → 8 bits from 0xC0.
        mutating func writeLiteral(_ symbol: Int) {
            switch symbol {
            case 0...143: writeCode(0x30 + symbol, bits: 8)
            case 144...255: writeCode(0x190 + symbol - 144, bits: 9)
            case 256...279: writeCode(symbol - 256, bits: 7)
            default: writeCode(0xC0 + symbol - 280, bits: 8)
            }
        }

        mutating func writeLength(_ length: Int) {
            var code = 28
            while Deflate.lengthBase[code] > length { code -= 1 }
            writeLiteral(257 + code)
            write(length - Deflate.lengthBase[code], bits: Deflate.lengthExtra[code])
        }

        /// Fixed distance codes are 5 bits, then the extra bits.
        mutating func writeDistance(_ distance: Int) {
            var code = 29
            while Deflate.distanceBase[code] > distance { code -= 1 }
            writeCode(code, bits: 5)
            write(distance - Deflate.distanceBase[code], bits: Deflate.distanceExtra[code])
        }

        mutating func flushToByte() {
            if count > 0 { write(0, bits: 8 - count) }
        }
    }
}
