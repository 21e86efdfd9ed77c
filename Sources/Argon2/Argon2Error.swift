/// Every way an Argon2 call can refuse its input, one case per rule (RFC 9106 §3.1 unless noted).
/// No case carries a password, secret or tag.
public enum Argon2Error: Error, Sendable, Equatable {
    /// v is neither 0x13 nor the legacy 0x10.
    case unsupportedVersion(UInt32)
    /// p must be 1...2^24 - 1.
    case parallelismOutOfRange(UInt32)
    /// T must be at least 4 bytes.
    case tagLengthOutOfRange(UInt32)
    /// t must be at least 1.
    case iterationsOutOfRange(UInt32)
    /// m must be at least 8p KiB.
    case memoryTooSmall(memoryKiB: UInt32, minimumKiB: UInt32)
    /// The password, salt, secret or associated data is longer than 2^32 - 1 bytes.
    case inputTooLong(Argon2Input)
    /// The salt is shorter than 8 bytes (the reference implementation's minimum; RFC 9106 §3.1 recommends 16).
    case saltTooShort(length: Int)
    /// m (KiB) is more than the limit: the verification limit, or the machine's memory for `hash`.
    case memoryLimitExceeded(memoryKiB: UInt32, limitKiB: UInt64)
    /// t from an encoded hash is more than `Argon2Limits.maxIterations`.
    case iterationsLimitExceeded(iterations: UInt32, limit: UInt32)
    /// p from an encoded hash is more than `Argon2Limits.maxParallelism`.
    case parallelismLimitExceeded(parallelism: UInt32, limit: UInt32)
    /// The salt of an encoded hash is longer than `Argon2Limits.maxSaltLength`.
    case saltLengthLimitExceeded(length: Int, limit: Int)
    /// The hash of an encoded hash is longer than `Argon2Limits.maxTagLength`.
    case tagLengthLimitExceeded(length: Int, limit: Int)
    /// The PHC string does not follow the format `$argon2id$v=19$m=...,t=...,p=...$<salt>$<hash>`.
    case malformedEncodedHash(EncodedHashDefect)

    /// The inputs whose length RFC 9106 §3.1 bounds by 2^32 - 1 bytes.
    public enum Argon2Input: String, Sendable, CaseIterable {
        case password, salt, secret, associatedData
    }

    /// What is wrong with a PHC string.
    public enum EncodedHashDefect: Sendable, Equatable {
        /// Longer than the limits allow for any valid string.
        case tooLong(length: Int, limit: Int)
        /// Not `$`-separated into identifier, [version,] parameters, salt and hash.
        case fieldCount
        /// The identifier is not argon2d, argon2i or argon2id.
        case unknownVariant
        /// The version field is not `v=<decimal>`.
        case versionField
        /// The parameter field is not exactly `m=<decimal>,t=<decimal>,p=<decimal>`.
        case parameterField
        /// The salt is not unpadded canonical standard base64.
        case saltEncoding
        /// The hash is not unpadded canonical standard base64.
        case hashEncoding
    }
}
