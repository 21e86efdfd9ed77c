/// BLAKE2b (RFC 7693), unkeyed, with a digest of 1...64 bytes: the hash function H of RFC 9106 §3.2.
///
/// Streaming: `update` any number of times, then `finalize` once. `finalize` wipes the state, because in
/// Argon2 it holds password-derived data.
struct BLAKE2b {
    static let blockSize = 128
    static let maxDigestLength = 64

    /// RFC 7693 §2.6: the initialisation vector (the SHA-512 IV).
    private static let iv: [UInt64] = [
        0x6a09_e667_f3bc_c908, 0xbb67_ae85_84ca_a73b, 0x3c6e_f372_fe94_f82b, 0xa54f_f53a_5f1d_36f1,
        0x510e_527f_ade6_82d1, 0x9b05_688c_2b3e_6c1f, 0x1f83_d9ab_fb41_bd6b, 0x5be0_cd19_137e_2179,
    ]

    /// RFC 7693 §2.7: message word permutations; round i uses row i mod 10.
    private static let sigma: [[Int]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
        [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
        [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
        [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
        [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
        [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
        [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
        [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
        [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
    ]

    private let digestLength: Int
    private var h: [UInt64]
    /// The last block seen is kept here and compressed only when more input arrives, since the final block must
    /// be compressed with the finalisation flag (RFC 7693 §3.3).
    private var buffer: [UInt8]
    private var buffered = 0
    /// t, the 128-bit count of bytes compressed so far (low and high words).
    private var counterLow: UInt64 = 0
    private var counterHigh: UInt64 = 0
    /// Working vector and message words, kept here so that they can be wiped.
    private var v: [UInt64]
    private var m: [UInt64]

    /// - Precondition: `1...64`. Only internal callers create digests, with lengths H' derives (RFC 9106 §3.3),
    ///   never with a length from outside.
    init(digestLength: Int) {
        precondition((1...Self.maxDigestLength).contains(digestLength), "BLAKE2b digest length out of range")
        self.digestLength = digestLength
        h = Self.iv
        // RFC 7693 §2.5: parameter block word 0 = 0x0101kknn (no key: kk = 0).
        h[0] ^= 0x0101_0000 ^ UInt64(digestLength)
        buffer = [UInt8](repeating: 0, count: Self.blockSize)
        v = [UInt64](repeating: 0, count: 16)
        m = [UInt64](repeating: 0, count: 16)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            if buffered == Self.blockSize {
                incrementCounter(by: Self.blockSize)
                compress(isLast: false)
                buffered = 0
            }
            let take = min(Self.blockSize - buffered, bytes.count - offset)
            let start = buffered
            buffer.withUnsafeMutableBytes { block in
                UnsafeMutableRawBufferPointer(rebasing: block[start..<start + take])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + take]))
            }
            buffered += take
            offset += take
        }
    }

    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// RFC 9106 §3.2: integers enter the hash as 32-bit little-endian words (LE32).
    mutating func update(le32 value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { update($0) }
    }

    /// Returns the digest and wipes the state.
    mutating func finalize() -> [UInt8] {
        incrementCounter(by: buffered)
        for i in buffered..<Self.blockSize { buffer[i] = 0 }
        compress(isLast: true)
        var digest = [UInt8](repeating: 0, count: digestLength)
        for i in 0..<digestLength {
            digest[i] = UInt8(truncatingIfNeeded: h[i / 8] >> (8 * UInt64(i % 8)))
        }
        wipe()
        return digest
    }

    /// Zeroes every field that held input-derived data.
    mutating func wipe() {
        secureZero(&h)
        secureZero(&v)
        secureZero(&m)
        secureZero(&buffer)
        buffered = 0
        counterLow = 0
        counterHigh = 0
    }

    /// True when no input-derived data is left in the state (tests check `finalize` wipes).
    var isWiped: Bool {
        h.allSatisfy { $0 == 0 } && v.allSatisfy { $0 == 0 } && m.allSatisfy { $0 == 0 }
            && buffer.allSatisfy { $0 == 0 }
    }

    private mutating func incrementCounter(by count: Int) {
        let (sum, overflow) = counterLow.addingReportingOverflow(UInt64(count))
        counterLow = sum
        if overflow { counterHigh &+= 1 }
    }

    /// RFC 7693 §3.2: the compression function F.
    private mutating func compress(isLast: Bool) {
        for i in 0..<16 {
            var word: UInt64 = 0
            for b in 0..<8 { word |= UInt64(buffer[8 * i + b]) << (8 * UInt64(b)) }
            m[i] = word
        }
        for i in 0..<8 {
            v[i] = h[i]
            v[i + 8] = Self.iv[i]
        }
        v[12] ^= counterLow
        v[13] ^= counterHigh
        if isLast { v[14] = ~v[14] }
        for round in 0..<12 {
            let s = Self.sigma[round % 10]
            mix(0, 4, 8, 12, m[s[0]], m[s[1]])
            mix(1, 5, 9, 13, m[s[2]], m[s[3]])
            mix(2, 6, 10, 14, m[s[4]], m[s[5]])
            mix(3, 7, 11, 15, m[s[6]], m[s[7]])
            mix(0, 5, 10, 15, m[s[8]], m[s[9]])
            mix(1, 6, 11, 12, m[s[10]], m[s[11]])
            mix(2, 7, 8, 13, m[s[12]], m[s[13]])
            mix(3, 4, 9, 14, m[s[14]], m[s[15]])
        }
        for i in 0..<8 { h[i] ^= v[i] ^ v[i + 8] }
    }

    /// RFC 7693 §3.1: the mixing function G (rotations 32, 24, 16, 63).
    private mutating func mix(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ x: UInt64, _ y: UInt64) {
        v[a] = v[a] &+ v[b] &+ x
        v[d] = (v[d] ^ v[a]).rotatedRight(by: 32)
        v[c] = v[c] &+ v[d]
        v[b] = (v[b] ^ v[c]).rotatedRight(by: 24)
        v[a] = v[a] &+ v[b] &+ y
        v[d] = (v[d] ^ v[a]).rotatedRight(by: 16)
        v[c] = v[c] &+ v[d]
        v[b] = (v[b] ^ v[c]).rotatedRight(by: 63)
    }
}

extension UInt64 {
    @inline(__always)
    func rotatedRight(by n: UInt64) -> UInt64 { (self >> n) | (self << (64 &- n)) }
}
