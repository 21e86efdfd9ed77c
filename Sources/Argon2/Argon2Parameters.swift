/// RFC 9106 §3.1: the type y of Argon2 (the raw values are the ones hashed into H0).
public enum Argon2Variant: Int, Sendable, CaseIterable {
    /// Data-dependent memory access (§3.4.1.1): fastest, for uses without side-channel threats.
    case argon2d = 0
    /// Data-independent memory access (§3.4.1.2): for side-channel-exposed settings.
    case argon2i = 1
    /// Argon2i for the first half of the first pass, Argon2d after (§3.4.1.3): the RECOMMENDED type (§4).
    case argon2id = 2

    /// The identifier in the PHC string format (`$argon2id$...`).
    public var identifier: String {
        switch self {
        case .argon2d: return "argon2d"
        case .argon2i: return "argon2i"
        case .argon2id: return "argon2id"
        }
    }
}

/// RFC 9106 §3.1: the cost parameters and output length of an Argon2 computation.
public struct Argon2Parameters: Sendable, Hashable {
    /// Version 0x13 (19), the one RFC 9106 specifies.
    public static let version13: UInt32 = 0x13
    /// Version 0x10 (16) of the reference implementation, still found in stored hashes (no xor of the
    /// previous pass, §3.2 step 6).
    public static let version10: UInt32 = 0x10

    public var variant: Argon2Variant
    /// v: 0x13, or 0x10 for legacy hashes.
    public var version: UInt32
    /// m: memory size in KiB (1024-byte blocks), 8p...2^32 - 1.
    public var memoryKiB: UInt32
    /// t: number of passes, 1...2^32 - 1.
    public var iterations: UInt32
    /// p: degree of parallelism (lanes), 1...2^24 - 1.
    public var parallelism: UInt32
    /// T: tag length in bytes, 4...2^32 - 1.
    public var tagLength: UInt32

    public init(
        variant: Argon2Variant = .argon2id, version: UInt32 = Argon2Parameters.version13, memoryKiB: UInt32,
        iterations: UInt32, parallelism: UInt32, tagLength: UInt32 = 32
    ) {
        self.variant = variant
        self.version = version
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.tagLength = tagLength
    }

    /// RFC 9106 §4, first recommended option: Argon2id, t = 1, p = 4, m = 2 GiB, 256-bit tag.
    public static let rfc9106HighMemory = Argon2Parameters(memoryKiB: 1 << 21, iterations: 1, parallelism: 4)

    /// RFC 9106 §4, second recommended option: Argon2id, t = 3, p = 4, m = 64 MiB, 256-bit tag
    /// (use with a 128-bit salt).
    public static let rfc9106LowMemory = Argon2Parameters(memoryKiB: 1 << 16, iterations: 3, parallelism: 4)

    /// RFC 9106 §3.1: the parameter ranges (the input lengths are checked by `Argon2.hash`).
    public func validate() throws(Argon2Error) {
        guard version == Self.version13 || version == Self.version10 else { throw .unsupportedVersion(version) }
        guard (1...Self.maximumParallelism).contains(parallelism) else { throw .parallelismOutOfRange(parallelism) }
        guard tagLength >= Self.minimumTagLength else { throw .tagLengthOutOfRange(tagLength) }
        guard iterations >= 1 else { throw .iterationsOutOfRange(iterations) }
        // m >= 8p; 8p <= 2^27 - 8 fits in a UInt32.
        guard memoryKiB >= 8 * parallelism else {
            throw .memoryTooSmall(memoryKiB: memoryKiB, minimumKiB: 8 * parallelism)
        }
    }

    /// §3.1: p is at most 2^24 - 1.
    public static let maximumParallelism: UInt32 = (1 << 24) - 1
    /// §3.1: T is at least 4 bytes.
    public static let minimumTagLength: UInt32 = 4
}
