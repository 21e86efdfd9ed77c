/// The codeword sequence of a byte-mode symbol: data bit stream (ISO/IEC 18004:2015 §7.4), error correction
/// (§7.5) and the interleaved final sequence (§7.6).
enum QRCodewords {
    /// §7.4.5 and §7.4.9–7.4.10: mode indicator 0100, character count indicator (8 or 16 bits), the bytes,
    /// a terminator of up to four 0 bits, 0 bits to the codeword boundary, then the pad codewords
    /// 11101100 and 00010001 in turn. The caller has checked that the bytes fit.
    static func dataCodewords(_ bytes: [UInt8], version: Int, level: QRErrorCorrectionLevel) -> [UInt8] {
        let capacity = QRVersionTable.dataCodewords(version, level)
        var out = [UInt8](repeating: 0, count: capacity)
        var writer = BitWriter()
        out.withUnsafeMutableBufferPointer { buffer in
            writer.write(0b0100, bits: 4, into: buffer)
            writer.write(bytes.count, bits: QRVersionTable.byteCountBits(version), into: buffer)
            for byte in bytes { writer.writeByte(byte, into: buffer) }
            let capacityBits = capacity * 8
            writer.write(0, bits: min(4, capacityBits - writer.bitCount), into: buffer)
            writer.write(0, bits: (8 - writer.bitCount % 8) % 8, into: buffer)
            var pad: UInt8 = 0xEC
            for index in (writer.bitCount / 8)..<capacity {
                buffer[index] = pad
                pad = pad == 0xEC ? 0x11 : 0xEC
            }
        }
        return out
    }

    /// §7.5.2 and §7.6: splits the data codewords into the Table 9 blocks (the shorter blocks first, the
    /// longer ones one data codeword longer), computes each block's error correction codewords, then takes
    /// data codewords column by column across the blocks, followed likewise by the error correction codewords.
    static func interleaved(data: [UInt8], version: Int, level: QRErrorCorrectionLevel) -> [UInt8] {
        let blockCount = QRVersionTable.blocks(version, level)
        let eccLength = QRVersionTable.eccCodewordsPerBlock(version, level)
        let total = QRVersionTable.totalCodewords(version)
        let longBlocks = total % blockCount
        let shortBlocks = blockCount - longBlocks
        let shortData = total / blockCount - eccLength
        let rs = ReedSolomon(degree: eccLength)

        var out = [UInt8](repeating: 0, count: total)
        var ecc = [UInt8](repeating: 0, count: eccLength * blockCount)
        data.withUnsafeBufferPointer { d in
            out.withUnsafeMutableBufferPointer { o in
                ecc.withUnsafeMutableBufferPointer { e in
                    var blockStart = 0
                    for block in 0..<blockCount {
                        let length = shortData + (block < shortBlocks ? 0 : 1)
                        let slice = UnsafeBufferPointer(rebasing: d[blockStart..<(blockStart + length)])
                        let target = UnsafeMutableBufferPointer(
                            rebasing: e[(block * eccLength)..<((block + 1) * eccLength)])
                        rs.remainder(of: slice, into: target)
                        // Data codeword i of this block goes to column i; the extra one of a long block
                        // follows the columns that all blocks share.
                        for i in 0..<length {
                            let position =
                                i < shortData
                                ? i * blockCount + block
                                : shortData * blockCount + (block - shortBlocks)
                            o[position] = slice[i]
                        }
                        blockStart += length
                    }
                    let eccStart = data.count
                    for block in 0..<blockCount {
                        for i in 0..<eccLength {
                            o[eccStart + i * blockCount + block] = e[block * eccLength + i]
                        }
                    }
                }
            }
        }
        return out
    }
}

/// Writes bit fields, most significant bit first, into a zeroed byte buffer.
struct BitWriter {
    private(set) var bitCount = 0

    /// Eight bits at once: the high part completes the current codeword, the low part starts the next.
    @inline(__always)
    mutating func writeByte(_ byte: UInt8, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let index = bitCount >> 3
        let offset = UInt8(bitCount & 7)
        buffer[index] |= byte >> offset
        if offset != 0 { buffer[index + 1] |= byte << (8 - offset) }
        bitCount += 8
    }

    mutating func write(_ value: Int, bits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard bits > 0 else { return }
        for shift in stride(from: bits - 1, through: 0, by: -1) {
            if value >> shift & 1 == 1 {
                buffer[bitCount >> 3] |= 0x80 >> UInt8(bitCount & 7)
            }
            bitCount += 1
        }
    }
}
