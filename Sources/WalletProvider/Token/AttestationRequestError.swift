import ServiceSupport

/// The rule an attestation request broke. The parser and the prover name the rule; each endpoint answers with its
/// own version's error table (`ErrorTable`), so one check serves every version.
enum AttestationRequestError: Error, Sendable, Equatable {
    /// The request's shape: not a JWS, a claim missing or mistyped, a limit exceeded.
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
        /// 0.9 `/token` and 1.0 `/wallet-attestations` as served so far: RFC 6749 §5.2 codes (`invalid_request` for
        /// shapes, `invalid_grant` for failed proofs, 403 for an unknown or revoked instance).
        case oauth
        /// IT-Wallet 1.3 / 1.5 Wallet Instance and Key Attestation endpoints ("… Error Response" tables):
        /// 400 bad_request, 403 invalid_request, 403 integrity_check_error, 404 not_found.
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
        case .malformed(let text), .unacceptedType(let text), .proofMalformed(let text):
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
        case .malformed(let text), .proofMalformed(let text): WireError(.badRequest, "bad_request", text)
        case .unacceptedType(let text): WireError(.badRequest, "invalid_request", text)
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
