import Crypto
import DeviceAttestation
import ITWalletProtocol
import Foundation
import ServiceSupport
import TesseraJOSE

/// Wallet Attestation issuance: `POST /token` (IT-Wallet 0.7–0.9, `war+jwt` / `var+jwt`), `POST /wallet-attestation`
/// (0.9.3, the same request as JSON) and `POST /wallet-attestations` (1.0, `wp-war+jwt`, three formats). The checks
/// in the spec's order: header, signature with `cnf.jwk`, times, audience and `iss`, the challenge (single use), a
/// valid instance for the key tag, the hardware proofs over `client_data` with the registered key and the integrity
/// verdicts for that same `client_data` (App Attest: counter persisted), posture. Failures are
/// `AttestationRequestFailure`s; each route answers them in its version's vocabulary.
struct TokenService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    /// Signs every attestation with the signing identity and the header trust material of its version.
    let signer: AttestationSigner
    let nonces: NonceStore
    let instances: InstanceStore
    /// Built once: it parses the policy's trusted roots.
    let appAttestVerifier: AppAttestVerifier

    /// The `/token` grant (RFC 7523 JWT bearer), as a form (the spec texts) or a JSON object (the production client).
    func issue(grantType: String?, assertion: String?) async throws(WireError) -> String {
        guard let grantType, let assertion, !assertion.isEmpty else {
            throw WireError(.badRequest, "invalid_request", "grant_type and assertion are required")
        }
        guard grantType == WalletAttestationRequest.grantType else {
            throw WireError(.badRequest, "unsupported_grant_type", "grant_type must be \(WalletAttestationRequest.grantType)")
        }
        do {
            return try await walletAttestation(assertion: assertion)
        } catch {
            throw error.oauthError
        }
    }

    /// The 0.9 Wallet Attestation (`wallet-attestation+jwt`) for a `war+jwt` / `var+jwt` request.
    func walletAttestation(assertion: String) async throws(AttestationRequestFailure) -> String {
        let (request, now) = try await verified(assertion: assertion, accepting: [.war, .variant])
        let subject = AttestedInstance(request: request, configuration: configuration, issuer: baseURL, now: now)
        return try WalletAttestation.sign(subject, with: signer)
    }

    /// The 1.0 Wallet Attestations (`jwt`, `dc+sd-jwt`, `mso_mdoc`) for a `wp-war+jwt` request: the
    /// `{"wallet_attestations": […]}` object.
    func walletAttestations(assertion: String) async throws(AttestationRequestFailure) -> JSONObject {
        let (request, now) = try await verified(assertion: assertion, accepting: [.walletProvider])
        let subject = AttestedInstance(request: request, configuration: configuration, issuer: baseURL, now: now)
        return try WalletAttestationFormat.response(subject, signer: signer, configuration: configuration)
    }

    /// Every check of the request, in the spec's order; the request and the instant it was checked at.
    private func verified(
        assertion: String, accepting types: Set<WalletAttestationRequest.RequestType>
    ) async throws(AttestationRequestFailure) -> (WalletAttestationRequest, Date) {
        let now = configuration.clock.now()
        let request = try WalletAttestationRequest(assertion: assertion, accepting: types)
        try request.verifySignature()
        try request.checkTimes(now: now)
        try request.checkAudience(provider: baseURL)
        _ = try request.checkIssuer(provider: baseURL)
        let consumed: Bool
        do {
            consumed = try await nonces.consume(request.challenge, now: now)
        } catch {
            throw .unavailable(error)
        }
        guard consumed else { throw .nonceInvalid }
        let instance = try await validInstance(tag: request.hardwareKeyTag)
        guard let jwkText = instance.public_key, let jwk = try? JWK(parsing: Array(jwkText.utf8)),
            case .es256(let hardwareKey)? = try? JWSVerificationKey(jwk: jwk)
        else { throw .unavailable(.server) }
        try await checkProofs(request, instance: instance, hardwareKey: hardwareKey, now: now)
        try checkPosture(instance)
        return (request, now)
    }

    private func validInstance(tag: String) async throws(AttestationRequestFailure) -> WalletInstanceRow {
        let id = InstanceStore.instanceID(hardwareKeyTag: tag)
        let found: WalletInstanceRow?
        do {
            found = try await instances.find(id: id)
        } catch {
            throw .unavailable(error)
        }
        guard let instance = found else { throw .instanceUnknown }
        guard instance.status == InstanceStatus.valid.rawValue, instance.hardware_key_tag == tag else {
            throw .instanceRevoked
        }
        return instance
    }

    private func checkProofs(
        _ request: WalletAttestationRequest, instance: WalletInstanceRow, hardwareKey: P256.Signing.PublicKey, now: Date
    ) async throws(AttestationRequestFailure) {
        switch instance.platform {
        case "ios":
            // The App Attest key is the hardware key: its assertion is both the signature and the integrity proof.
            let proof = try HardwareProofs.appAttest(
                request, key: hardwareKey, previousCounter: UInt32(clamping: instance.sign_count), verifier: appAttestVerifier)
            let counter = Int64(proof.assertion.counter)
            let advanced: Bool
            do {
                advanced = try await instances.advanceCounter(id: instance.id, to: counter)
            } catch {
                throw .unavailable(error)
            }
            guard advanced else { throw .proofInvalid("the App Attest counter was already used") }
        default:
            let proof = try HardwareProofs.androidSignature(request, key: hardwareKey)
            guard let integrity = configuration.androidIntegrity else {
                throw .integrityInvalid("no Android integrity verifier is configured")
            }
            do {
                // Play Integrity's requestHash is hex SHA-256 of the same client_data the hardware key signed.
                try await integrity.verify(
                    integrityToken: request.integrityAssertion, clientDataHash: proof.clientData.hash,
                    packageNames: configuration.apps.android.map(\.packageName), at: now)
            } catch {
                let text = "integrity_assertion: \(error.description)"
                throw error.isDeviceVerdict ? .deviceBelowMinimum(text) : .integrityInvalid(text)
            }
        }
    }

    /// The stored device facts against today's posture policy (a policy may have tightened since registration).
    private func checkPosture(_ instance: WalletInstanceRow) throws(AttestationRequestFailure) {
        guard instance.platform == "android", let minimum = configuration.posture.minimumAndroidPatchLevel else { return }
        let device = (try? JSONValue.parse(instance.device))?.objectValue
        guard let patch = device?["os_patch_level"]?.int64Value, patch >= minimum else {
            throw .deviceBelowMinimum("security patch level older than \(minimum)")
        }
    }
}
