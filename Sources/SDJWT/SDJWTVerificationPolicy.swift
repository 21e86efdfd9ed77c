import Foundation

/// What the verifier requires (RFC 9901 §7.3 step 1: whether Key Binding is checked is the verifier's policy, never
/// inferred from the presentation).
public struct SDJWTVerificationPolicy: Sendable {
    /// Where the issuer key comes from.
    public var issuerKeySource: IssuerKeySource
    /// Reject a presentation without KB-JWT (§7.3 step 2). A KB-JWT that is present is always verified.
    public var requireKeyBinding: Bool
    /// The KB-JWT `aud` must equal this (§7.3 step 4.6); nil checks only that `aud` is a string.
    public var expectedAudience: String?
    /// The KB-JWT `nonce` must equal this (§7.3 step 4.6); nil checks only that `nonce` is a string.
    public var expectedNonce: String?
    /// Allowed clock difference for `exp`, `nbf`, `iat` and the KB-JWT `iat`, in seconds.
    public var clockSkew: TimeInterval
    /// How old a KB-JWT may be (its `iat` before now), in seconds (§7.3 step 4.5).
    public var keyBindingMaxAge: TimeInterval
    /// Accepted values of the Issuer-signed JWT `typ` header; nil accepts any (plain RFC 9901 SD-JWTs).
    public var acceptedTypes: Set<String>?
    /// SD-JWT VC rules: `vct` required (VC §3.2.2.2) and `iss`/`nbf`/`exp`/`cnf`/`vct`/`status` never disclosed.
    public var sdJWTVC: Bool
    /// Check the credential's `status` against its Token Status List; nil skips the check.
    public var statusCheck: StatusListCheck?
    public var limits: SDJWTLimits

    public init(
        issuerKeySource: IssuerKeySource, requireKeyBinding: Bool = true, expectedAudience: String? = nil,
        expectedNonce: String? = nil, clockSkew: TimeInterval = 60, keyBindingMaxAge: TimeInterval = 300,
        acceptedTypes: Set<String>? = nil, sdJWTVC: Bool = false, statusCheck: StatusListCheck? = nil,
        limits: SDJWTLimits = .default
    ) {
        self.issuerKeySource = issuerKeySource
        self.requireKeyBinding = requireKeyBinding
        self.expectedAudience = expectedAudience
        self.expectedNonce = expectedNonce
        self.clockSkew = clockSkew
        self.keyBindingMaxAge = keyBindingMaxAge
        self.acceptedTypes = acceptedTypes
        self.sdJWTVC = sdJWTVC
        self.statusCheck = statusCheck
        self.limits = limits
    }

    /// The SD-JWT VC profile of OpenID4VP 1.0 / HAIP: `typ` `dc+sd-jwt` (and the pre-2025 `vc+sd-jwt` only when
    /// `acceptLegacyType`), `vct` required, Key Binding required unless said otherwise.
    public static func sdJWTVC(
        issuerKeySource: IssuerKeySource, expectedAudience: String?, expectedNonce: String?,
        requireKeyBinding: Bool = true, acceptLegacyType: Bool = false, statusCheck: StatusListCheck? = nil,
        clockSkew: TimeInterval = 60, keyBindingMaxAge: TimeInterval = 300
    ) -> SDJWTVerificationPolicy {
        SDJWTVerificationPolicy(
            issuerKeySource: issuerKeySource, requireKeyBinding: requireKeyBinding, expectedAudience: expectedAudience,
            expectedNonce: expectedNonce, clockSkew: clockSkew, keyBindingMaxAge: keyBindingMaxAge,
            acceptedTypes: acceptLegacyType ? ["dc+sd-jwt", "vc+sd-jwt"] : ["dc+sd-jwt"], sdJWTVC: true,
            statusCheck: statusCheck)
    }
}
