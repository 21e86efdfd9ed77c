import ServiceSupport

/// The rule an attestation request broke. The body reader, the parser and the prover name the rule; each endpoint
/// answers with its version's error table (`ErrorTable`), so one check serves every version.
enum AttestationRequestError: Error, Sendable, Equatable {
    /// A required member of the body or of the request JWT is absent (its name).
    case missing(String)
    /// Not shaped as the endpoint defines: a body that is not the expected JSON object or content type, an unknown
    /// body member, a claim the request's version does not define (`challenge` in a `nonce` request and back).
    case unexpected(String)
    /// Present but not in its required form: not a JWS, a claim mistyped, a limit exceeded.
    case malformed(String)
    /// A `typ` this endpoint does not take (the description names the ones it does).
    case unacceptedType(String)
    /// The request's (or a `keys_to_attest` element's) signature by its `cnf.jwk`.
    case signatureInvalid(String)
    /// Expired, not yet valid, or living longer than allowed.
    case notCurrent(String)
    /// `aud` / `sub` name another provider.
    case audience(String)
    /// `iss` is none of the accepted forms.
    case issuer(String)
    /// The nonce was not issued, has expired or was used.
    case nonce
    /// No instance is registered for `hardware_key_tag`.
    case unknownInstance
    /// The instance is revoked.
    case revoked
    /// A proof's encoding (base64, DER, App Attest structure).
    case proofMalformed(String)
    /// `hardware_signature` / the App Attest assertion does not verify (or its counter was used).
    case hardwareProof(String)
    /// The integrity assertion is not genuine or not for this request.
    case integrityAssertion(String)
    /// The device or app fails the integrity verdicts or the provider's posture policy.
    case integrityCheck(String)
    /// The request does not match the registered instance (platform) or names a Wallet Solution not served.
    case instanceMismatch(String)
    /// A `keys_to_attest` element failed (its signature, times, or its key attestation).
    case keysToAttest(String)

    /// The error tables of the versions.
    enum ErrorTable: Sendable {
        /// The 0.7–0.9 `/token` grant: RFC 6749 §5.2 codes (`invalid_request` for shapes, `invalid_grant` for failed
        /// proofs, 403 for an unknown or revoked instance and a refused device).
        case oauth
        /// The IT-Wallet JSON endpoints: 0.9.3 `/wallet-attestation` (`wallet-solution.rst`), 1.0.x "Mobile
        /// Application Key Binding Error Response", and the 1.3 / 1.5 Wallet Instance and Key Attestation endpoints,
        /// whose tables are the 1.0 one plus rows for `keys_to_attest`: 400 `bad_request` (missing or unknown
        /// parameters), 400 `invalid_request` (a request type not served here), 422 `validation_error` (a parameter
        /// not in its required format), 403 `invalid_request` (every failed proof, a revoked instance), 403
        /// `integrity_check_error` (a device below the minimum), 404 `not_found` (an unknown instance).
        case itWallet
    }

    func wire(_ table: ErrorTable) -> WireError {
        switch table {
        case .oauth: oauth
        case .itWallet: itWallet
        }
    }

    private var oauth: WireError {
        switch self {
        case .missing(let name): WireError(.badRequest, "invalid_request", "\(name) is missing")
        case .unexpected(let text), .malformed(let text), .unacceptedType(let text), .proofMalformed(let text):
            WireError(.badRequest, "invalid_request", text)
        case .signatureInvalid(let text), .notCurrent(let text), .audience(let text), .issuer(let text),
            .hardwareProof(let text), .instanceMismatch(let text), .keysToAttest(let text):
            WireError(.badRequest, "invalid_grant", text)
        case .nonce: WireError(.badRequest, "invalid_grant", "the challenge is invalid, expired or already used")
        case .unknownInstance: WireError(.forbidden, "invalid_grant", Self.unknownText)
        case .revoked: WireError(.forbidden, "invalid_grant", Self.revokedText)
        case .integrityAssertion(let text), .integrityCheck(let text): WireError(.forbidden, "invalid_grant", text)
        }
    }

    private var itWallet: WireError {
        switch self {
        case .missing(let name): WireError(.badRequest, "bad_request", "\(name) is missing")
        case .unexpected(let text): WireError(.badRequest, "bad_request", text)
        case .unacceptedType(let text): WireError(.badRequest, "invalid_request", text)
        case .malformed(let text), .proofMalformed(let text): WireError(.unprocessableEntity, "validation_error", text)
        case .signatureInvalid(let text), .notCurrent(let text), .audience(let text), .issuer(let text),
            .hardwareProof(let text), .integrityAssertion(let text), .instanceMismatch(let text), .keysToAttest(let text):
            WireError(.forbidden, "invalid_request", text)
        case .nonce: WireError(.forbidden, "invalid_request", Self.nonceText)
        case .unknownInstance: WireError(.notFound, "not_found", Self.unknownText)
        case .revoked: WireError(.forbidden, "invalid_request", Self.revokedText)
        case .integrityCheck(let text): WireError(.forbidden, "integrity_check_error", text)
        }
    }

    private static let nonceText = "the nonce is invalid, expired or already used"
    private static let unknownText = "no wallet instance is registered for this hardware key tag"
    private static let revokedText = "the wallet instance is revoked"
}
