/// The shape of the memory matrix and the per-segment filling rules of RFC 9106 §3.2 step 5–6 and §3.4.
///
/// The matrix has p lanes (rows) of q blocks each; every lane is cut into SL = 4 segments, and the four
/// segments of one column group form a slice. Lanes of one slice are filled independently, so this type is
/// immutable and its `fillSegment` only touches memory through the pointers it is given.
struct MatrixShape: Sendable {
    /// SL, the number of slices (§3.4).
    static let syncPoints = 4
    /// Pseudo-random values per address block in data-independent addressing (§3.4.2): 128 words.
    static let addressesPerBlock = blockWordCount
    /// Scratch blocks per lane: R and T for `compress`, the address block, its input block, and a zero block.
    static let scratchBlocksPerLane = 5

    let variant: Argon2Variant
    let version: UInt32
    let passes: Int
    let lanes: Int
    /// q = m' / p, with m' = 4p * floor(m / 4p) (§3.2 step 5).
    let laneLength: Int
    let segmentLength: Int

    var blockCount: Int { lanes * laneLength }

    /// Expects parameters that passed `Argon2Parameters.validate()` (so m >= 8p, p >= 1).
    init(parameters: Argon2Parameters) {
        variant = parameters.variant
        version = parameters.version
        passes = Int(parameters.iterations)
        lanes = Int(parameters.parallelism)
        let segments = Self.syncPoints * lanes
        let blocks = (Int(parameters.memoryKiB) / segments) * segments
        laneLength = blocks / lanes
        segmentLength = laneLength / Self.syncPoints
    }

    /// §3.4.1: Argon2i always, Argon2id in the first two slices of the first pass, use data-independent
    /// addressing (J1, J2 from the address blocks); otherwise J1, J2 come from the previous block.
    func usesDataIndependentAddressing(pass: Int, slice: Int) -> Bool {
        switch variant {
        case .argon2d: return false
        case .argon2i: return true
        case .argon2id: return pass == 0 && slice < Self.syncPoints / 2
        }
    }

    /// §3.4.2: the column of the reference block from J1 (the low 32 bits of the pseudo-random value), for the
    /// block at `index` in the segment (`pass`, `slice`); `sameLane` when the reference lane l = J2 mod p is
    /// the current one.
    func referenceColumn(pass: Int, slice: Int, index: Int, pseudoRandom j1: UInt64, sameLane: Bool) -> Int {
        // |W|: the blocks that may be referenced (§3.4.1). The current lane gives every block computed so far
        // but the previous one; another lane gives its finished segments, without their last block when the
        // current block starts a segment (that block may still be being computed in the other lane).
        let areaSize: Int
        if pass == 0 {
            if sameLane {
                areaSize = slice * segmentLength + index - 1
            } else {
                areaSize = slice * segmentLength - (index == 0 ? 1 : 0)
            }
        } else {
            if sameLane {
                areaSize = laneLength - segmentLength + index - 1
            } else {
                areaSize = laneLength - segmentLength - (index == 0 ? 1 : 0)
            }
        }
        // x = J1^2 / 2^32, y = (|W| * x) / 2^32, zz = |W| - 1 - y: a non-uniform choice favouring recent blocks.
        let x = (j1 &* j1) >> 32
        let y = (UInt64(areaSize) &* x) >> 32
        let relative = areaSize - 1 - Int(y)
        // W starts after the current segment (it wraps around the lane) except in the first pass.
        let start = (pass == 0 || slice == Self.syncPoints - 1) ? 0 : (slice + 1) * segmentLength
        return (start + relative) % laneLength
    }

    /// Fills the segment (`pass`, `slice`, `lane`) of `memory`, using the lane's `scratch` blocks.
    ///
    /// Reads only blocks of finished segments of other lanes and blocks of its own lane, and writes only its
    /// own segment, which is what lets the lanes of one slice run on different threads (§3.4).
    func fillSegment(
        memory: UnsafeMutablePointer<UInt64>, scratch: UnsafeMutablePointer<UInt64>, pass: Int, slice: Int, lane: Int
    ) {
        let r = scratch
        let t = scratch + blockWordCount
        let addresses = scratch + 2 * blockWordCount
        let addressInput = scratch + 3 * blockWordCount
        let zero = scratch + 4 * blockWordCount
        for i in 0..<blockWordCount { zero[i] = 0 }

        let dataIndependent = usesDataIndependentAddressing(pass: pass, slice: slice)
        if dataIndependent {
            // §3.4.2: Z = LE64(r) || LE64(l) || LE64(sl) || LE64(m') || LE64(t) || LE64(y) || LE64(i) || 0^968,
            // the counter i (word 6) starting at 1 for the first address block of the segment.
            for i in 0..<blockWordCount { addressInput[i] = 0 }
            addressInput[0] = UInt64(pass)
            addressInput[1] = UInt64(lane)
            addressInput[2] = UInt64(slice)
            addressInput[3] = UInt64(blockCount)
            addressInput[4] = UInt64(passes)
            addressInput[5] = UInt64(variant.rawValue)
        }
        // Address block = G(ZERO, G(ZERO, Z)) with the counter incremented first.
        func nextAddresses() {
            addressInput[6] &+= 1
            compress(zero, addressInput, into: addresses, xorIntoResult: false, scratchR: r, scratchT: t)
            compress(zero, addresses, into: addresses, xorIntoResult: false, scratchR: r, scratchT: t)
        }

        // Blocks 0 and 1 of every lane are set from H0 (§3.2 steps 3–4): the first segment starts at 2.
        let startIndex = (pass == 0 && slice == 0) ? 2 : 0
        if dataIndependent && startIndex != 0 { nextAddresses() }
        // §3.2 step 6: version 0x13 xors the new block into the old one after the first pass; 0x10 overwrites.
        let xorIntoResult = pass > 0 && version == Argon2Parameters.version13
        let laneStart = lane * laneLength

        for index in startIndex..<segmentLength {
            let column = slice * segmentLength + index
            let previousColumn = column == 0 ? laneLength - 1 : column - 1
            let previous = memory + (laneStart + previousColumn) * blockWordCount
            let pseudoRandom: UInt64
            if dataIndependent {
                if index % Self.addressesPerBlock == 0 { nextAddresses() }
                pseudoRandom = addresses[index % Self.addressesPerBlock]
            } else {
                pseudoRandom = previous[0]
            }
            // J2 (high 32 bits) picks the lane; the first slice of the first pass stays in the current lane.
            let referenceLane = (pass == 0 && slice == 0) ? lane : Int((pseudoRandom >> 32) % UInt64(lanes))
            let referenceColumn = referenceColumn(
                pass: pass, slice: slice, index: index, pseudoRandom: pseudoRandom & 0xffff_ffff,
                sameLane: referenceLane == lane)
            let reference = memory + (referenceLane * laneLength + referenceColumn) * blockWordCount
            let current = memory + (laneStart + column) * blockWordCount
            compress(previous, reference, into: current, xorIntoResult: xorIntoResult, scratchR: r, scratchT: t)
        }
    }
}
