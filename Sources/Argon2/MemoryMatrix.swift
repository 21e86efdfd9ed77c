import Dispatch

/// The memory of one Argon2 computation (RFC 9106 §3.2 steps 3–7): p lanes of q 1 KiB blocks in one flat
/// `[UInt64]`, plus per-lane scratch blocks. Everything in it derives from the password: `wipe()` zeroes it,
/// and `Argon2.hash` wipes it before returning.
struct MemoryMatrix {
    let shape: MatrixShape
    private(set) var blocks: [UInt64]
    private(set) var scratch: [UInt64]

    init(shape: MatrixShape) {
        self.shape = shape
        blocks = [UInt64](repeating: 0, count: shape.blockCount * blockWordCount)
        scratch = [UInt64](repeating: 0, count: shape.lanes * MatrixShape.scratchBlocksPerLane * blockWordCount)
    }

    /// §3.2 steps 3–7: fills the matrix from H0, returns the tag and wipes the matrix.
    mutating func computeTag(h0: [UInt8], length: Int) -> [UInt8] {
        setFirstBlocks(h0: h0)
        fill()
        let tag = tag(length: length)
        wipe()
        return tag
    }

    /// §3.2 steps 3–4: B[i][0] = H'^1024(H0 || LE32(0) || LE32(i)), B[i][1] = H'^1024(H0 || LE32(1) || LE32(i)).
    mutating func setFirstBlocks(h0: [UInt8]) {
        var bytes = [UInt8](repeating: 0, count: 1024)
        for lane in 0..<shape.lanes {
            for column in 0..<2 {
                bytes.withUnsafeMutableBytes { output in
                    variableLengthHash(into: output) { hash in
                        hash.update(h0)
                        hash.update(le32: UInt32(column))
                        hash.update(le32: UInt32(lane))
                    }
                }
                let first = (lane * shape.laneLength + column) * blockWordCount
                for word in 0..<blockWordCount {
                    blocks[first + word] = Self.loadLittleEndian(bytes, at: 8 * word)
                }
            }
        }
        secureZero(&bytes)
    }

    /// §3.2 steps 5–6: t passes of SL = 4 slices. The lanes of a slice run concurrently; a slice starts only
    /// when every lane has finished the previous one (the synchronisation points of §3.4).
    mutating func fill() {
        let shape = self.shape
        blocks.withUnsafeMutableBufferPointer { memoryBuffer in
            scratch.withUnsafeMutableBufferPointer { scratchBuffer in
                guard let memory = memoryBuffer.baseAddress, let scratch = scratchBuffer.baseAddress else { return }
                let lanes = LanePointers(memory: memory, scratch: scratch)
                for pass in 0..<shape.passes {
                    for slice in 0..<MatrixShape.syncPoints {
                        if shape.lanes == 1 {
                            shape.fillSegment(memory: memory, scratch: scratch, pass: pass, slice: slice, lane: 0)
                        } else {
                            // concurrentPerform returns when every lane's segment is done: the slice barrier.
                            DispatchQueue.concurrentPerform(iterations: shape.lanes) { lane in
                                shape.fillSegment(
                                    memory: lanes.memory,
                                    scratch: lanes.scratch + lane * MatrixShape.scratchBlocksPerLane * blockWordCount,
                                    pass: pass, slice: slice, lane: lane)
                            }
                        }
                    }
                }
            }
        }
    }

    /// §3.2 step 7: T = H'^T(C), C being the xor of the last block of every lane.
    func tag(length: Int) -> [UInt8] {
        var finalBlock = [UInt64](repeating: 0, count: blockWordCount)
        for lane in 0..<shape.lanes {
            let last = (lane * shape.laneLength + shape.laneLength - 1) * blockWordCount
            for word in 0..<blockWordCount { finalBlock[word] ^= blocks[last + word] }
        }
        var bytes = [UInt8](repeating: 0, count: 1024)
        for word in 0..<blockWordCount {
            for b in 0..<8 { bytes[8 * word + b] = UInt8(truncatingIfNeeded: finalBlock[word] >> (8 * UInt64(b))) }
        }
        var tag = [UInt8](repeating: 0, count: length)
        tag.withUnsafeMutableBytes { output in
            variableLengthHash(into: output) { hash in hash.update(bytes) }
        }
        secureZero(&finalBlock)
        secureZero(&bytes)
        return tag
    }

    mutating func wipe() {
        secureZero(&blocks)
        secureZero(&scratch)
    }

    var isWiped: Bool { blocks.allSatisfy { $0 == 0 } && scratch.allSatisfy { $0 == 0 } }

    private static func loadLittleEndian(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var word: UInt64 = 0
        for b in 0..<8 { word |= UInt64(bytes[offset + b]) << (8 * UInt64(b)) }
        return word
    }
}

/// The base pointers handed to the lane threads. Safe to share: during one slice each lane writes only its own
/// segment and its own scratch blocks, and reads other lanes' blocks only from slices already finished
/// (`MatrixShape.fillSegment`), so no two threads touch the same word while one of them writes it.
private struct LanePointers: @unchecked Sendable {
    let memory: UnsafeMutablePointer<UInt64>
    let scratch: UnsafeMutablePointer<UInt64>
}
