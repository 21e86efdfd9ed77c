import TesseraJOSE

/// Limits for untrusted SD-JWTs.
public struct SDJWTLimits: Sendable, Hashable {
    /// Longest accepted serialization, in bytes.
    public var maxLength: Int
    /// Most Disclosures accepted.
    public var maxDisclosures: Int
    /// Deepest nesting of recursive Disclosures (each Disclosure value inserted counts one level).
    public var maxDepth: Int
    /// Limits for the JWTs (header, payload) and for each Disclosure's JSON.
    public var jose: JOSELimits

    public init(maxLength: Int, maxDisclosures: Int, maxDepth: Int, jose: JOSELimits) {
        self.maxLength = maxLength
        self.maxDisclosures = maxDisclosures
        self.maxDepth = maxDepth
        self.jose = jose
    }

    /// 4 MiB, 4096 Disclosures, 64 levels, `JOSELimits.default`.
    public static let `default` = SDJWTLimits(maxLength: 4 << 20, maxDisclosures: 4096, maxDepth: 64, jose: .default)
}
