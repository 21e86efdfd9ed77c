import Foundation

/// Argon2 (RFC 9106): memory-hard password hashing and key derivation.
public enum Argon2 {
    /// Salts shorter than this are refused (the reference implementation's ARGON2_MIN_SALT_LENGTH).
    public static let minimumSaltLength = 8

    /// RFC 9106 §3: the tag of `password` (P) with `salt` (S), optional `secret` (K) and `associatedData` (X).
    ///
    /// Lanes run on concurrent threads when p > 1. The memory (m KiB) is wiped before returning.
    public static func hash(
        password: some DataProtocol, salt: some DataProtocol, secret: some DataProtocol = [UInt8](),
        associatedData: some DataProtocol = [UInt8](), parameters: Argon2Parameters
    ) throws(Argon2Error) -> [UInt8] {
        try parameters.validate()
        try checkInputLength(password, .password)
        try checkInputLength(salt, .salt)
        try checkInputLength(secret, .secret)
        try checkInputLength(associatedData, .associatedData)
        guard salt.count >= minimumSaltLength else { throw .saltTooShort(length: salt.count) }
        try checkMemoryAvailable(parameters)

        var h0 = preHashDigest(
            password: password, salt: salt, secret: secret, associatedData: associatedData, parameters: parameters)
        var matrix = MemoryMatrix(shape: MatrixShape(parameters: parameters))
        let tag = matrix.computeTag(h0: h0, length: Int(parameters.tagLength))
        secureZero(&h0)
        return tag
    }

    /// RFC 9106 §3.2 steps 1–2: H0 = H^64(LE32(p) || LE32(T) || LE32(m) || LE32(t) || LE32(v) || LE32(y) ||
    /// LE32(length(P)) || P || LE32(length(S)) || S || LE32(length(K)) || K || LE32(length(X)) || X).
    /// Expects inputs already checked by `hash`.
    static func preHashDigest(
        password: some DataProtocol, salt: some DataProtocol, secret: some DataProtocol,
        associatedData: some DataProtocol, parameters: Argon2Parameters
    ) -> [UInt8] {
        var hash = BLAKE2b(digestLength: 64)
        hash.update(le32: parameters.parallelism)
        hash.update(le32: parameters.tagLength)
        hash.update(le32: parameters.memoryKiB)
        hash.update(le32: parameters.iterations)
        hash.update(le32: parameters.version)
        hash.update(le32: UInt32(parameters.variant.rawValue))
        hashLengthPrefixed(password, into: &hash)
        hashLengthPrefixed(salt, into: &hash)
        hashLengthPrefixed(secret, into: &hash)
        hashLengthPrefixed(associatedData, into: &hash)
        return hash.finalize()
    }

    /// LE32(length(input)) || input, region by region: the bytes are hashed where they are, never copied into
    /// a temporary buffer.
    private static func hashLengthPrefixed(_ input: some DataProtocol, into hash: inout BLAKE2b) {
        hash.update(le32: UInt32(truncatingIfNeeded: input.count))
        for region in input.regions {
            region.withUnsafeBytes { hash.update($0) }
        }
    }

    /// §3.1: every input is at most 2^32 - 1 bytes.
    private static func checkInputLength(_ input: some DataProtocol, _ which: Argon2Error.Argon2Input)
        throws(Argon2Error)
    {
        guard UInt64(input.count) <= UInt64(UInt32.max) else { throw .inputTooLong(which) }
    }

    /// Refuses a memory size this machine cannot hold, rather than letting the allocation crash the process.
    private static func checkMemoryAvailable(_ parameters: Argon2Parameters) throws(Argon2Error) {
        // m' = 4p * floor(m / 4p) blocks (§3.2 step 5) plus the lanes' scratch blocks, computed in UInt64.
        let segments = UInt64(MatrixShape.syncPoints) * UInt64(parameters.parallelism)
        let blockCount = UInt64(parameters.memoryKiB) / segments * segments
        let scratchCount = UInt64(parameters.parallelism) * UInt64(MatrixShape.scratchBlocksPerLane)
        let words = (blockCount + scratchCount) * UInt64(blockWordCount)
        let bytes = words * 8 + UInt64(parameters.tagLength)
        let available = ProcessInfo.processInfo.physicalMemory
        guard bytes <= available, words <= UInt64(Int.max) else {
            throw .memoryLimitExceeded(memoryKiB: parameters.memoryKiB, limitKiB: available / 1024)
        }
    }
}
