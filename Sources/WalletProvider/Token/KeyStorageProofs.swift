import Crypto
import DeviceAttestation
import Foundation

/// Where each key of `keys_to_attest` lives, proven per platform. Android: every element carries
/// `wscd_key_attestation.attestation`, the OEM key attestation of its `cnf.jwk` made with the nonce's UTF-8 bytes as
/// challenge (1.3 production client and io-wallet; 1.5 §12.1.5 step 5), verified like a registration's and held to
/// the same posture. iOS has no such API: an element carries no `attestation` (io-wallet refuses one); the keys'
/// App Attest assertions are checked with the hardware proofs.
enum KeyStorageProofs {
    /// Each key's `key_storage` level, in element order.
    static func check(
        _ keys: KeysToAttest, platform: String, nonce: String, policy: AndroidAttestationPolicy, posture: DevicePosturePolicy,
        at now: Date
    ) throws(AttestationRequestError) -> [ResistanceLevel] {
        var levels: [ResistanceLevel] = []
        for element in keys.elements {
            let name = "keys_to_attest[\(element.position)]"
            guard platform == "android" else {
                guard element.androidAttestation == nil else {
                    throw .keysToAttest("\(name): an iOS key carries no wscd_key_attestation.attestation")
                }
                levels.append(ResistanceLevel.keyStorage(android: nil))
                continue
            }
            guard element.integrityAssertion == nil else {
                throw .keysToAttest("\(name): an Android key carries no wscd_key_attestation.integrity_assertion")
            }
            guard let text = element.androidAttestation, let evidence = KeyAttestationEvidence(wire: text),
                case .androidChain(let chain) = evidence.kind
            else { throw .keysToAttest("\(name): wscd_key_attestation.attestation is not an Android key attestation chain") }
            let outcome = AndroidKeyAttestationVerifier(policy: policy).verify(chain: chain, challenge: Data(nonce.utf8), at: now)
            guard let facts = outcome.facts, outcome.failures.isEmpty else {
                let names = outcome.failures.map(\.rawValue).joined(separator: ", ")
                throw .keysToAttest("\(name): the key attestation failed: \(names.isEmpty ? "malformed" : names)")
            }
            guard let attested = try? P256.Signing.PublicKey(derRepresentation: facts.leafPublicKeySPKI),
                attested.x963Representation == element.publicKey.x963Representation
            else {
                throw .keysToAttest("\(name): the attested key is not its cnf.jwk")
            }
            if let violation = posture.violation(facts) { throw .integrityCheck("\(name): \(violation)") }
            levels.append(ResistanceLevel.keyStorage(android: facts.keyMintSecurityLevel))
        }
        return levels
    }
}
