import ServiceSupport

/// Why a Wallet Attestation request is refused, named once. Each endpoint answers a failure in its version's
/// vocabulary: `/token` with RFC 6749 §5.2 (`oauthError`), the JSON endpoints of 0.9.3 and 1.0 with the IT-Wallet
/// error table (`itWalletError`).
enum AttestationRequestFailure: Error, Sendable, Equatable {
    /// A required member of the body or of the request JWT is absent.
    case missing(String)
    /// Not shaped as this endpoint defines: a body that is not the expected JSON object, an unknown member, a member
    /// this request's version does not define (e.g. `challenge` in a `wp-war+jwt`).
    case unexpected(String)
    /// A member is present but not in its required form (not a JWS, not a string, not a public JWK, …).
    case malformed(String)
    /// The request JWT's `typ` is not taken at this endpoint (the description names what is).
    case wrongType(String)
    /// The request is not signed by `cnf.jwk`.
    case signatureInvalid
    /// Expired, not yet valid, or living longer than a request may.
    case notCurrent
    /// `aud` / `sub` do not name this provider.
    case wrongAudience
    /// `iss` does not name the thumbprint of `cnf.jwk`.
    case wrongIssuer
    /// The nonce was never issued, has expired or was used.
    case nonceInvalid
    /// No instance is registered for the hardware key tag.
    case instanceUnknown
    /// The instance is revoked.
    case instanceRevoked
    /// `hardware_signature` (or the App Attest assertion it is part of) does not verify for `client_data`.
    case proofInvalid(String)
    /// `integrity_assertion` is refused (token not genuine, not for this request, not verifiable here).
    case integrityInvalid(String)
    /// The device is below the provider's minimum security requirements (posture, integrity verdicts).
    case deviceBelowMinimum(String)
    /// The provider could not handle the request (database unavailable, signing failed): answered as is.
    case unavailable(WireError)

    /// RFC 6749 §5.2 (the 0.7–0.9 `/token` grant): a malformed request is `invalid_request`, a refused grant
    /// `invalid_grant` (403 when the instance itself or its device is refused).
    var oauthError: WireError {
        switch self {
        case .missing(let name): WireError(.badRequest, "invalid_request", "\(name) is missing")
        case .unexpected(let text), .malformed(let text), .wrongType(let text): WireError(.badRequest, "invalid_request", text)
        case .signatureInvalid, .notCurrent, .wrongAudience, .wrongIssuer, .nonceInvalid, .proofInvalid:
            WireError(.badRequest, "invalid_grant", description)
        case .instanceUnknown, .instanceRevoked, .integrityInvalid, .deviceBelowMinimum:
            WireError(.forbidden, "invalid_grant", description)
        case .unavailable(let error): error
        }
    }

    /// The IT-Wallet error table of the Wallet Attestation endpoints (0.9.3 `wallet-solution.rst`, 1.0.x "Mobile
    /// Application Key Binding Error Response"): 400 `bad_request` for a malformed request (missing or unknown
    /// parameters), 400 `invalid_request` for a request type not served here, 422 `validation_error` for a
    /// parameter not in its required format, 403 `invalid_request` for every proof that fails and a revoked instance,
    /// 403 `integrity_check_error` for a device below the minimum, 404 `not_found` for an unknown instance.
    var itWalletError: WireError {
        switch self {
        case .missing(let name): WireError(.badRequest, "bad_request", "\(name) is missing")
        case .unexpected(let text): WireError(.badRequest, "bad_request", text)
        case .wrongType(let text): WireError(.badRequest, "invalid_request", text)
        case .malformed(let text): WireError(.unprocessableEntity, "validation_error", text)
        case .signatureInvalid, .notCurrent, .wrongAudience, .wrongIssuer, .nonceInvalid, .instanceRevoked,
            .proofInvalid, .integrityInvalid:
            WireError(.forbidden, "invalid_request", description)
        case .instanceUnknown: WireError(.notFound, "not_found", description)
        case .deviceBelowMinimum: WireError(.forbidden, "integrity_check_error", description)
        case .unavailable(let error): error
        }
    }

    /// What the answer's `error_description` says (never a secret).
    var description: String {
        switch self {
        case .missing(let name): "\(name) is missing"
        case .unexpected(let text), .malformed(let text), .wrongType(let text): text
        case .signatureInvalid: "the assertion's signature does not verify with cnf.jwk"
        case .notCurrent: "the assertion is expired, not yet valid or too long-lived"
        case .wrongAudience: "the assertion is not addressed to this Wallet Provider"
        case .wrongIssuer: "iss must name the thumbprint of cnf.jwk"
        case .nonceInvalid: "the challenge is invalid, expired or already used"
        case .instanceUnknown: "no wallet instance is registered for this hardware key tag"
        case .instanceRevoked: "the wallet instance is revoked"
        case .proofInvalid(let text), .integrityInvalid(let text): text
        case .deviceBelowMinimum(let text): "device posture: \(text)"
        case .unavailable(let error): error.description
        }
    }
}

extension AttestationRequestFailure {
    /// Runs an IT-Wallet JSON endpoint's work (0.9.3, 1.0), answering its failure with the IT-Wallet table.
    static func answeredByTheITWalletTable<T>(
        _ body: () async throws(AttestationRequestFailure) -> T
    ) async throws(WireError) -> T {
        do throws(AttestationRequestFailure) {
            return try await body()
        } catch {
            throw error.itWalletError
        }
    }
}
