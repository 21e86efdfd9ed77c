import Crypto
import DeviceAttestation
import Foundation
import ITWalletProtocol
import TesseraCore

/// The hardware proofs of an attestation request (`hardware_signature`, `integrity_assertion`), checked with the
/// key registered for the instance against each `ClientData` spelling. A proof is found for one spelling or the
/// request is refused; the integrity verdicts are then checked for that same `client_data`.
enum HardwareProofs {
    /// What an Android hardware key signed (DER ECDSA with SHA-256, base64).
    enum AndroidSignature: String, Sendable, CaseIterable {
        /// `client_data` itself: the production client (io-react-native-crypto `signUTF8Text`, SHA256withECDSA over
        /// the UTF-8 text); io-wallet verifies `createVerify("SHA256").update(clientData)`.
        case overClientData = "ecdsa_sha256_over_client_data"
        /// `client_data_hash`: the IT-Wallet 0.7–1.5 texts ("signing the client_data_hash with the Wallet
        /// Hardware's private key"), so SHA-256 is applied twice.
        case overClientDataHash = "ecdsa_sha256_over_client_data_hash"
    }

    /// iOS: one App Attest assertion over `client_data`, sent in two parts as the production client does
    /// (io-react-native-integrity `decodeAssertion`): `hardware_signature` = its `signature`, `integrity_assertion` =
    /// its `authenticatorData`, each base64. Returns the spelling it was made over and the assertion's facts.
    static func appAttest(
        signature: String, authenticatorData: String, candidates: [ClientData], key: P256.Signing.PublicKey,
        previousCounter: UInt32, verifier: AppAttestVerifier
    ) throws(AttestationRequestError) -> (clientData: ClientData, assertion: AppAttestAssertion) {
        guard let signature = Base64Any.decode(signature), let authenticatorData = Base64Any.decode(authenticatorData) else {
            throw .proofMalformed("hardware_signature and integrity_assertion must be base64")
        }
        for clientData in candidates {
            let outcome = verifier.verifyAssertion(
                signature: signature, authenticatorData: authenticatorData, clientData: clientData.bytes, publicKey: key,
                previousCounter: previousCounter)
            if let facts = try accept(outcome, "the App Attest assertion") { return (clientData, facts) }
        }
        throw .hardwareProof("the App Attest assertion failed: \(AttestationFailure.assertionSignatureInvalid.rawValue)")
    }

    /// iOS, a 1.5 Key Attestation Request without a top-level `integrity_assertion`: each element's
    /// `wscd_key_attestation.integrity_assertion` is an App Attest assertion object (base64 CBOR `{signature,
    /// authenticatorData}`, as `generateAssertion` returns it) over `client_data` by the registered key, their
    /// counters rising in element order above the stored one; `hardware_signature` is the first one's signature
    /// (Apple's API signs `client_data_hash` only inside an assertion). Returns the last (largest) counter.
    static func appAttestPerKey(
        hardwareSignature: String, elements: [KeyAttestationElement], candidates: [ClientData], key: P256.Signing.PublicKey,
        previousCounter: UInt32, verifier: AppAttestVerifier
    ) throws(AttestationRequestError) -> AppAttestAssertion {
        var objects: [Data] = []
        for element in elements {
            guard let text = element.integrityAssertion, let object = Base64Any.decode(text) else {
                throw .keysToAttest("keys_to_attest[\(element.position)] has no base64 wscd_key_attestation.integrity_assertion")
            }
            objects.append(object)
        }
        guard let first = objects.first, let firstSignature = try? AppAttestAssertionObject(first).signature,
            Base64Any.decode(hardwareSignature) == firstSignature
        else { throw .hardwareProof("hardware_signature is not the signature of the first key's App Attest assertion") }
        func verify(_ object: Data, _ clientData: ClientData, _ counter: UInt32) throws(AttestationRequestError) -> AppAttestAssertion? {
            try accept(
                verifier.verifyAssertion(object, clientData: clientData.bytes, publicKey: key, previousCounter: counter),
                "a key's App Attest assertion")
        }
        for clientData in candidates {
            // The first assertion decides the spelling; every other key's must verify over the same bytes.
            guard var last = try verify(first, clientData, previousCounter) else { continue }
            for object in objects.dropFirst() {
                guard let next = try verify(object, clientData, last.counter) else {
                    throw .hardwareProof("a key's App Attest assertion does not verify over the same client_data")
                }
                last = next
            }
            return last
        }
        throw .hardwareProof("the keys' App Attest assertions failed: \(AttestationFailure.assertionSignatureInvalid.rawValue)")
    }

    /// The facts of an assertion that verified, nil when its signature does not verify for this `client_data` (it
    /// may for another spelling); any other broken rule refuses the request.
    private static func accept(
        _ outcome: AttestationOutcome<AppAttestAssertion>, _ what: String
    ) throws(AttestationRequestError) -> AppAttestAssertion? {
        if outcome.failures.contains(.malformed) { throw .proofMalformed("\(what) is not App Attest data") }
        // The signature verifies for one spelling of client_data at most; the other rules are then that one's.
        if outcome.failures.contains(.assertionSignatureInvalid) { return nil }
        guard let facts = outcome.facts, outcome.failures.isEmpty else {
            throw .hardwareProof("\(what) failed: \(outcome.failures.map(\.rawValue).joined(separator: ", "))")
        }
        return facts
    }

    /// Android: `hardware_signature` by the registered key over one `client_data` spelling, in one of the
    /// `AndroidSignature` forms.
    static func androidSignature(
        _ hardwareSignature: String, candidates: [ClientData], key: P256.Signing.PublicKey
    ) throws(AttestationRequestError) -> (clientData: ClientData, form: AndroidSignature) {
        guard let der = Base64Any.decode(hardwareSignature), let signature = try? P256.Signing.ECDSASignature(derRepresentation: der) else {
            throw .proofMalformed("hardware_signature is not a base64 DER ECDSA signature")
        }
        for clientData in candidates {
            for form in AndroidSignature.allCases {
                let message = form == .overClientData ? clientData.bytes : clientData.hash
                if key.isValidSignature(signature, for: message) { return (clientData, form) }
            }
        }
        throw .hardwareProof("hardware_signature does not verify with the registered key")
    }
}
