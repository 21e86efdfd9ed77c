/// Upper bounds for parameters read from a stored PHC string (`Argon2.verify`), so that a tampered or absurd
/// string cannot make a verifier allocate gigabytes or run for minutes.
public struct Argon2Limits: Sendable, Hashable {
    /// Largest m in KiB.
    public var maxMemoryKiB: UInt32
    /// Largest t.
    public var maxIterations: UInt32
    /// Largest p.
    public var maxParallelism: UInt32
    /// Longest decoded salt in bytes.
    public var maxSaltLength: Int
    /// Longest decoded hash (tag) in bytes.
    public var maxTagLength: Int

    public init(
        maxMemoryKiB: UInt32 = 262_144, maxIterations: UInt32 = 16, maxParallelism: UInt32 = 16,
        maxSaltLength: Int = 64, maxTagLength: Int = 128
    ) {
        self.maxMemoryKiB = maxMemoryKiB
        self.maxIterations = maxIterations
        self.maxParallelism = maxParallelism
        self.maxSaltLength = maxSaltLength
        self.maxTagLength = maxTagLength
    }

    /// 256 MiB (four times RFC 9106's 64 MiB option), t <= 16, p <= 16, salt <= 64 bytes, tag <= 128 bytes.
    /// RFC 9106's 2 GiB option needs a larger `maxMemoryKiB`.
    public static let `default` = Argon2Limits()
}
