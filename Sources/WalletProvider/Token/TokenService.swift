import Foundation
import ServiceSupport
import TesseraJOSE

/// Wallet Attestation issuance: `POST /token` (IT-Wallet 0.7–0.9, `war+jwt` / `var+jwt`) and
/// `POST /wallet-attestations` (1.0, `wp-war+jwt`). The request is checked by `AttestationRequestProver` (the same
/// checks as every version's); errors follow RFC 6749 §5.2, a revoked or unknown instance gets 403.
struct TokenService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let key: ProviderKey
    let prover: AttestationRequestProver

    /// The `/token` grant (RFC 7523 JWT bearer), as a form (the spec texts) or a JSON object (the production client).
    func issue(grantType: String?, assertion: String?) async throws(WireError) -> String {
        guard let grantType, let assertion, !assertion.isEmpty else {
            throw WireError(.badRequest, "invalid_request", "grant_type and assertion are required")
        }
        guard grantType == WalletAttestationRequest.grantType else {
            throw WireError(.badRequest, "unsupported_grant_type", "grant_type must be \(WalletAttestationRequest.grantType)")
        }
        return try await issue(assertion: assertion, accepting: [.war, .variant], attestationType: WalletAttestation.type)
    }

    /// Checks the request and signs the attestation (`attestationType` is its `typ`).
    func issue(
        assertion: String, accepting types: Set<WalletAttestationRequest.RequestType>, attestationType: String
    ) async throws(WireError) -> String {
        let (proven, _) = try await prover.prove(assertion: assertion, accepting: types, table: .oauth) { _, _ in () }
        return try WalletAttestation.sign(
            key: key, type: attestationType, issuer: baseURL, ephemeralKey: proven.request.ephemeralKey, aal: configuration.aal,
            now: proven.now, lifetime: configuration.attestationLifetime)
    }
}
