import Foundation
import ServiceSupport
import TesseraJOSE

/// Wallet Attestation issuance of 0.9 and 1.0: `POST /token` (IT-Wallet 0.7–0.9, `war+jwt` / `var+jwt`, RFC 6749
/// errors), `POST /wallet-attestation` (0.9.3, the same request as JSON) and `POST /wallet-attestations` (1.0,
/// `wp-war+jwt`, three formats), both with the IT-Wallet error table. The request is checked by
/// `AttestationRequestProver` (the same checks as every version's); what is issued is signed by the signing
/// identity with its version's header trust material (`AttestationSigner`).
struct TokenService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let signer: AttestationSigner
    let prover: AttestationRequestProver

    /// The `/token` grant (RFC 7523 JWT bearer), as a form (the spec texts) or a JSON object (the production client).
    func issue(grantType: String?, assertion: String?) async throws(WireError) -> String {
        guard let grantType, let assertion, !assertion.isEmpty else {
            throw WireError(.badRequest, "invalid_request", "grant_type and assertion are required")
        }
        guard grantType == WalletAttestationRequest.grantType else {
            throw WireError(.badRequest, "unsupported_grant_type", "grant_type must be \(WalletAttestationRequest.grantType)")
        }
        return try await walletAttestation(assertion: assertion, table: .oauth)
    }

    /// The 0.9 Wallet Attestation (`wallet-attestation+jwt`) for a `war+jwt` / `var+jwt` request.
    func walletAttestation(
        assertion: String, table: AttestationRequestError.ErrorTable = .itWallet
    ) async throws(WireError) -> String {
        let (proven, _) = try await prover.prove(assertion: assertion, accepting: [.war, .variant], table: table) { _, _ in () }
        return try WalletAttestation.sign(subject(proven), with: signer)
    }

    /// The 1.0 Wallet Attestations (`jwt`, `dc+sd-jwt`, `mso_mdoc`) for a `wp-war+jwt` request: the
    /// `{"wallet_attestations": […]}` object.
    func walletAttestations(assertion: String) async throws(WireError) -> JSONObject {
        let (proven, _) = try await prover.prove(assertion: assertion, accepting: [.walletProvider], table: .itWallet) { _, _ in () }
        return try WalletAttestationFormat.response(subject(proven), signer: signer, configuration: configuration)
    }

    private func subject(_ proven: AttestationRequestProver.Proven) -> AttestedInstance {
        AttestedInstance(request: proven.request, configuration: configuration, issuer: baseURL, now: proven.now)
    }
}
