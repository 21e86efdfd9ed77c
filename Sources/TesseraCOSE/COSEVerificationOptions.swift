/// Policy applied when a COSE_Sign1 or COSE_Mac0 is verified.
public struct COSEVerificationOptions: Sendable, Hashable {
    /// When true (the default), `alg` must be in the protected bucket, so that it is covered by
    /// the signature or MAC. RFC 9052 §3.1 also allows `alg` to be authenticated by other means
    /// and sent unprotected; set this to false to accept `alg` from the unprotected bucket
    /// when the protected one has none (the cose-wg/Examples `mac-pass-02`/`-03` vectors do
    /// this). Either way an algorithm is bound to exactly one key type and curve, so an
    /// unprotected `alg` cannot switch a key to another algorithm.
    public var requireProtectedAlgorithm: Bool

    /// Labels the application processes itself. A `crit` header (RFC 9052 §3.1) listing any
    /// label outside this set and outside the RFC 9052 parameters (labels 1–6) is rejected
    /// with `COSEError.unknownCriticalHeader`.
    public var understoodCriticalLabels: Set<COSEHeaderLabel>

    public init(requireProtectedAlgorithm: Bool = true, understoodCriticalLabels: Set<COSEHeaderLabel> = []) {
        self.requireProtectedAlgorithm = requireProtectedAlgorithm
        self.understoodCriticalLabels = understoodCriticalLabels
    }

    /// `alg` must be protected; no extra critical labels are understood.
    public static let strict = COSEVerificationOptions()

    /// As `strict`, but `alg` may come from the unprotected bucket when the protected one has none.
    public static let allowingUnprotectedAlgorithm = COSEVerificationOptions(requireProtectedAlgorithm: false)
}
