import Crypto
import DeviceAttestation
import ITWalletProtocol
import Foundation
import ServiceSupport
import TesseraJOSE

/// Wallet Attestation issuance: `POST /token` (IT-Wallet 0.7–0.9, `war+jwt` / `var+jwt`) and
/// `POST /wallet-attestations` (1.0, `wp-war+jwt`). The checks in the spec's order: header, signature with
/// `cnf.jwk`, times, audience and `iss`, the challenge (single use), a valid instance for the key tag, the hardware
/// proofs over `client_data` with the registered key and the integrity verdicts for that same `client_data`
/// (App Attest: counter persisted), posture. Errors follow RFC 6749 §5.2; a revoked or unknown instance gets 403.
struct TokenService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let key: ProviderKey
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
        return try await issue(assertion: assertion, accepting: [.war, .variant], attestationType: WalletAttestation.type)
    }

    /// Checks the request and signs the attestation (`attestationType` is its `typ`).
    func issue(
        assertion: String, accepting types: Set<WalletAttestationRequest.RequestType>, attestationType: String
    ) async throws(WireError) -> String {
        let now = configuration.clock.now()
        let request = try WalletAttestationRequest(assertion: assertion, accepting: types)
        try request.verifySignature()
        try request.checkTimes(now: now)
        try request.checkAudience(provider: baseURL)
        _ = try request.checkIssuer(provider: baseURL)
        guard try await nonces.consume(request.challenge, now: now) else {
            throw WireError(.badRequest, "invalid_grant", "the challenge is invalid, expired or already used")
        }
        let instance = try await validInstance(tag: request.hardwareKeyTag)
        guard let jwkText = instance.public_key, let jwk = try? JWK(parsing: Array(jwkText.utf8)),
            case .es256(let hardwareKey)? = try? JWSVerificationKey(jwk: jwk)
        else { throw WireError.server }
        try await checkProofs(request, instance: instance, hardwareKey: hardwareKey, now: now)
        try checkPosture(instance)
        return try WalletAttestation.sign(
            key: key, type: attestationType, issuer: baseURL, ephemeralKey: request.ephemeralKey, aal: configuration.aal,
            now: now, lifetime: configuration.attestationLifetime)
    }

    private func validInstance(tag: String) async throws(WireError) -> WalletInstanceRow {
        let id = InstanceStore.instanceID(hardwareKeyTag: tag)
        guard let instance = try await instances.find(id: id) else {
            throw WireError(.forbidden, "invalid_grant", "no wallet instance is registered for this hardware key tag")
        }
        guard instance.status == InstanceStatus.valid.rawValue, instance.hardware_key_tag == tag else {
            throw WireError(.forbidden, "invalid_grant", "the wallet instance is revoked")
        }
        return instance
    }

    private func checkProofs(
        _ request: WalletAttestationRequest, instance: WalletInstanceRow, hardwareKey: P256.Signing.PublicKey, now: Date
    ) async throws(WireError) {
        switch instance.platform {
        case "ios":
            // The App Attest key is the hardware key: its assertion is both the signature and the integrity proof.
            let proof = try HardwareProofs.appAttest(
                request, key: hardwareKey, previousCounter: UInt32(clamping: instance.sign_count), verifier: appAttestVerifier)
            guard try await instances.advanceCounter(id: instance.id, to: Int64(proof.assertion.counter)) else {
                throw WireError(.badRequest, "invalid_grant", "the App Attest counter was already used")
            }
        default:
            let proof = try HardwareProofs.androidSignature(request, key: hardwareKey)
            guard let integrity = configuration.androidIntegrity else {
                throw WireError(.forbidden, "invalid_grant", "no Android integrity verifier is configured")
            }
            do {
                // Play Integrity's requestHash is hex SHA-256 of the same client_data the hardware key signed.
                try await integrity.verify(
                    integrityToken: request.integrityAssertion, clientDataHash: proof.clientData.hash,
                    packageNames: configuration.apps.android.map(\.packageName), at: now)
            } catch {
                throw WireError(.forbidden, "invalid_grant", "integrity_assertion: \(error.description)")
            }
        }
    }

    /// The stored device facts against today's posture policy (a policy may have tightened since registration).
    private func checkPosture(_ instance: WalletInstanceRow) throws(WireError) {
        guard instance.platform == "android", let minimum = configuration.posture.minimumAndroidPatchLevel else { return }
        let device = (try? JSONValue.parse(instance.device))?.objectValue
        guard let patch = device?["os_patch_level"]?.int64Value, patch >= minimum else {
            throw WireError(.forbidden, "invalid_grant", "device posture: security patch level older than \(minimum)")
        }
    }
}
