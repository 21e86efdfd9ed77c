import Crypto
import DeviceAttestation
import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// `POST /wallet-instance` (IT-Wallet Wallet Instance Initialization and Registration): the challenge, the key
/// attestation, the device posture, then the instance is stored, bound to the account. Errors are the seed's
/// table: 400 bad_request, 403 integrity_check_error, 403 invalid_request, 422 validation_error, 500, 503.
struct RegistrationService: Sendable {
    let configuration: WalletProviderConfiguration
    let nonces: NonceStore
    let instances: InstanceStore
    /// Built once: it parses the policy's trusted roots.
    let appAttestVerifier: AppAttestVerifier

    /// The registration body. The challenge is `challenge` (IT-Wallet 0.7–0.9, the production client) or `nonce`
    /// (the 1.0 text), never both; `is_renewal` (production client: whether io-wallet e-mails the user) is accepted
    /// and kept with the instance's facts. Anything else is refused.
    struct Request: Sendable {
        let challenge: String
        let keyAttestation: String
        let hardwareKeyTag: String
        let isRenewal: Bool?

        init(json: JSONObject) throws(WireError) {
            let shape = WireError(
                .badRequest, "bad_request",
                "the body must be {challenge (or nonce), key_attestation, hardware_key_tag[, is_renewal]}, strings non-empty")
            let allowed: Set<String> = ["challenge", "nonce", "key_attestation", "hardware_key_tag", "is_renewal"]
            guard Set(json.keys).isSubset(of: allowed), (json["challenge"] == nil) != (json["nonce"] == nil),
                let challenge = (json["challenge"] ?? json["nonce"])?.stringValue, !challenge.isEmpty,
                let keyAttestation = json["key_attestation"]?.stringValue, !keyAttestation.isEmpty,
                let tag = json["hardware_key_tag"]?.stringValue, !tag.isEmpty
            else { throw shape }
            if let renewal = json["is_renewal"] {
                guard case .bool(let value) = renewal else { throw shape }
                isRenewal = value
            } else {
                isRenewal = nil
            }
            guard tag.utf8.count <= 256 else { throw WireError(.unprocessableEntity, "validation_error", "hardware_key_tag is too long") }
            self.challenge = challenge
            self.keyAttestation = keyAttestation
            self.hardwareKeyTag = tag
        }
    }

    /// What a verified attestation yields: the hardware key and the facts kept with the instance.
    struct Verified: Sendable {
        let publicKey: P256.Signing.PublicKey
        let platform: String
        var device: JSONObject
        let signCount: Int64
    }

    func register(_ request: Request, accountID: String) async throws(WireError) {
        let now = configuration.clock.now()
        guard try await nonces.consume(request.challenge, now: now) else {
            throw WireError(.forbidden, "invalid_request", "the challenge is invalid, expired or already used")
        }
        guard let attestation = KeyAttestationEvidence(wire: request.keyAttestation) else {
            throw WireError(.unprocessableEntity, "validation_error", "key_attestation is neither an App Attest object nor an Android certificate chain")
        }
        var verified = try verify(attestation, request: request, at: now)
        if let renewal = request.isRenewal { verified.device["is_renewal"] = .bool(renewal) }
        let inserted = try await instances.insert(
            accountID: accountID, hardwareKeyTag: request.hardwareKeyTag,
            publicKeyJWK: JWK(publicKey: verified.publicKey).jsonObject.description, platform: verified.platform,
            device: verified.device.description, signCount: verified.signCount, now: now)
        guard inserted else { throw WireError(.unprocessableEntity, "validation_error", "this hardware key tag is already registered") }
    }

    func verify(_ attestation: KeyAttestationEvidence, request: Request, at now: Date) throws(WireError) -> Verified {
        switch attestation.kind {
        case .appAttest(let object):
            guard let keyID = Base64Any.decode(request.hardwareKeyTag), keyID.count == 32 else {
                throw WireError(.unprocessableEntity, "validation_error", "on iOS hardware_key_tag is the App Attest keyId (base64 of 32 bytes)")
            }
            // io-wallet and the IT-Wallet apps attest the key with clientDataHash = SHA-256(challenge).
            let clientDataHash = Data(SHA256.hash(data: Data(request.challenge.utf8)))
            let outcome = appAttestVerifier.verifyAttestation(object, clientDataHash: clientDataHash, keyID: keyID, at: now)
            let facts = try Self.accept(outcome)
            var device: JSONObject = ["environment": .string(facts.environment?.rawValue ?? "unknown")]
            if let app = facts.app { device["app_id"] = .string(app.rpID) }
            // iOS 27+: what the authenticator data's extensions say about the build (kept for the operator).
            if let version = facts.extensions?.bundleVersion { device["bundle_version"] = .string(version) }
            if let category = facts.extensions?.validationCategory { device["validation_category"] = .integer(Int64(category)) }
            return Verified(publicKey: facts.publicKey, platform: "ios", device: device, signCount: Int64(facts.counter))
        case .androidChain(let chain):
            let outcome = AndroidKeyAttestationVerifier(policy: configuration.android)
                .verify(chain: chain, challenge: Data(request.challenge.utf8), at: now)
            let facts = try Self.accept(outcome)
            guard let key = try? P256.Signing.PublicKey(derRepresentation: facts.leafPublicKeySPKI) else {
                throw WireError(.forbidden, "integrity_check_error", "the attested hardware key is not an EC P-256 key")
            }
            try checkPosture(facts)
            let device: JSONObject = [
                "attestation_version": .integer(Int64(facts.attestationVersion)),
                "attestation_security_level": .integer(Int64(facts.attestationSecurityLevel.rawValue)),
                "keymint_security_level": .integer(Int64(facts.keyMintSecurityLevel.rawValue)),
                "os_version": facts.osVersion.map { .integer(Int64($0)) } ?? .null,
                "os_patch_level": facts.osPatchLevel.map { .integer(Int64($0)) } ?? .null,
                "package_names": .array(facts.packageNames.map { .string($0) }),
            ]
            return Verified(publicKey: key, platform: "android", device: device, signCount: 0)
        }
    }

    /// The posture policy beyond the attestation rules (patch level, attestation version).
    func checkPosture(_ facts: AndroidKeyAttestation) throws(WireError) {
        if let violation = configuration.posture.violation(facts) { throw WireError(.forbidden, "integrity_check_error", violation) }
    }

    /// Maps an attestation outcome to the error table: undecodable ⇒ 422; a broken signature ⇒ 403
    /// invalid_request; any other rule ⇒ 403 integrity_check_error naming every rule broken.
    static func accept<Facts>(_ outcome: AttestationOutcome<Facts>) throws(WireError) -> Facts {
        ServiceMetrics.outcome(
            "device_attestation", result: outcome.failures.first?.rawValue ?? (outcome.facts == nil ? "malformed" : "ok"))
        if let facts = outcome.facts, outcome.failures.isEmpty { return facts }
        let names = outcome.failures.map(\.rawValue).joined(separator: ", ")
        if outcome.failures.contains(.malformed) || outcome.facts == nil && outcome.failures.isEmpty {
            throw WireError(.unprocessableEntity, "validation_error", "the key attestation cannot be decoded")
        }
        if outcome.failures.contains(.certificateChainInvalid) || outcome.failures.contains(.assertionSignatureInvalid) {
            throw WireError(.forbidden, "invalid_request", "the key attestation signature is invalid: \(names)")
        }
        throw WireError(.forbidden, "integrity_check_error", "the key attestation failed: \(names)")
    }
}
