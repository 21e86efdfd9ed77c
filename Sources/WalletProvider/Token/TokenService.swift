import Crypto
import DeviceAttestation
import Foundation
import ServiceSupport
import TesseraJOSE

/// `POST /token` (IT-Wallet v0.9 Wallet Attestation issuance). The checks in the spec's order: header, signature
/// with `cnf.jwk`, challenge (single use), a valid instance for the key tag, `client_data` rebuilt and
/// `hardware_signature` verified with the registered key, the integrity assertion (App Attest: counter persisted),
/// posture, `iss`. Errors follow RFC 6749 §5.2; a revoked or unknown instance gets 403.
struct TokenService: Sendable {
    let configuration: WalletProviderConfiguration
    let baseURL: String
    let key: ProviderKey
    let nonces: NonceStore
    let instances: InstanceStore
    /// Built once: it parses the policy's trusted roots.
    let appAttestVerifier: AppAttestVerifier

    func issue(grantType: String?, assertion: String?) async throws(WireError) -> String {
        guard let grantType, let assertion, !assertion.isEmpty else {
            throw WireError(.badRequest, "invalid_request", "grant_type and assertion are required")
        }
        guard grantType == WalletAttestationRequest.grantType else {
            throw WireError(.badRequest, "unsupported_grant_type", "grant_type must be \(WalletAttestationRequest.grantType)")
        }
        let now = configuration.clock.now()
        let request = try WalletAttestationRequest(assertion: assertion)
        try request.verifySignature()
        try request.checkTimes(now: now, audience: baseURL)
        guard try await nonces.consume(request.challenge, now: now) else {
            throw WireError(.badRequest, "invalid_grant", "the challenge is invalid, expired or already used")
        }
        let instance = try await validInstance(tag: request.hardwareKeyTag)
        guard let jwkText = instance.public_key, let jwk = try? JWK(parsing: Array(jwkText.utf8)),
            case .es256(let hardwareKey)? = try? JWSVerificationKey(jwk: jwk)
        else { throw WireError.server }
        let clientData = request.clientData
        try await checkProofs(request, clientData: clientData, instance: instance, hardwareKey: hardwareKey, now: now)
        try checkPosture(instance)
        guard request.iss == request.ephemeralKey.thumbprintBase64URL() else {
            throw WireError(.badRequest, "invalid_grant", "iss must be the thumbprint of cnf.jwk")
        }
        return try WalletAttestation.sign(
            key: key, issuer: baseURL, ephemeralKey: request.ephemeralKey, aal: configuration.aal, now: now,
            lifetime: configuration.attestationLifetime)
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
        _ request: WalletAttestationRequest, clientData: Data, instance: WalletInstanceRow,
        hardwareKey: P256.Signing.PublicKey, now: Date
    ) async throws(WireError) {
        let clientDataHash = Data(SHA256.hash(data: clientData))
        switch instance.platform {
        case "ios":
            // The App Attest key is the hardware key: both proofs are App Attest assertions over client_data.
            let verifier = appAttestVerifier
            var counter: UInt32 = 0
            for proof in [request.hardwareSignature, request.integrityAssertion] {
                guard let object = Base64Any.decode(proof) else {
                    throw WireError(.badRequest, "invalid_request", "an App Attest assertion is not base64")
                }
                let outcome = verifier.verifyAssertion(
                    object, clientData: clientData, publicKey: hardwareKey, previousCounter: UInt32(clamping: instance.sign_count))
                guard let facts = outcome.facts, outcome.failures.isEmpty else {
                    let names = outcome.failures.map(\.rawValue).joined(separator: ", ")
                    throw WireError(.badRequest, "invalid_grant", "the App Attest assertion failed: \(names)")
                }
                counter = max(counter, facts.counter)
            }
            guard try await instances.advanceCounter(id: instance.id, to: Int64(counter)) else {
                throw WireError(.badRequest, "invalid_grant", "the App Attest counter was already used")
            }
        default:
            guard let signature = Base64Any.decode(request.hardwareSignature),
                let ecdsa = try? P256.Signing.ECDSASignature(derRepresentation: signature),
                hardwareKey.isValidSignature(ecdsa, for: clientDataHash)
            else { throw WireError(.badRequest, "invalid_grant", "hardware_signature does not verify with the registered key") }
            guard let integrity = configuration.androidIntegrity else {
                throw WireError(.forbidden, "invalid_grant", "no Android integrity verifier is configured")
            }
            do {
                try await integrity.verify(
                    integrityToken: request.integrityAssertion, clientDataHash: clientDataHash,
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
