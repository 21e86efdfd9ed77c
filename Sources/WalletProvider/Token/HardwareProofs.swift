import Crypto
import DeviceAttestation
import Foundation
import ITWalletProtocol
import ServiceSupport
import TesseraCore

/// The hardware proofs of a Wallet Attestation Request (`hardware_signature`, `integrity_assertion`), checked
/// with the key registered for the instance against each `ClientData` spelling. A proof is found for one spelling
/// or the request is refused; the integrity verdicts are then checked for that same `client_data`.
enum HardwareProofs {
    /// What an Android hardware key signed (DER ECDSA with SHA-256, base64).
    enum AndroidSignature: String, Sendable, CaseIterable {
        /// `client_data` itself: the production client (io-react-native-crypto `signUTF8Text`, SHA256withECDSA over
        /// the UTF-8 text); io-wallet verifies `createVerify("SHA256").update(clientData)`.
        case overClientData = "ecdsa_sha256_over_client_data"
        /// `client_data_hash`: the IT-Wallet 0.7–1.0 texts ("signing the client_data_hash with the Wallet
        /// Hardware's private key"), so SHA-256 is applied twice.
        case overClientDataHash = "ecdsa_sha256_over_client_data_hash"
    }

    /// iOS: one App Attest assertion over `client_data`, sent in two parts as the production client does
    /// (io-react-native-integrity `decodeAssertion`): `hardware_signature` = its `signature`, `integrity_assertion` =
    /// its `authenticatorData`, each base64. Returns the spelling it was made over and the assertion's facts.
    static func appAttest(
        _ request: WalletAttestationRequest, key: P256.Signing.PublicKey, previousCounter: UInt32, verifier: AppAttestVerifier
    ) throws(WireError) -> (clientData: ClientData, assertion: AppAttestAssertion) {
        guard let signature = Base64Any.decode(request.hardwareSignature),
            let authenticatorData = Base64Any.decode(request.integrityAssertion)
        else { throw WireError(.badRequest, "invalid_request", "hardware_signature and integrity_assertion must be base64") }
        for clientData in request.clientDataCandidates {
            let outcome = verifier.verifyAssertion(
                signature: signature, authenticatorData: authenticatorData, clientData: clientData.bytes, publicKey: key,
                previousCounter: previousCounter)
            if outcome.failures.contains(.malformed) {
                throw WireError(.badRequest, "invalid_request", "integrity_assertion is not App Attest authenticator data")
            }
            // The signature verifies for one spelling of client_data at most; the other rules are then that one's.
            if outcome.failures.contains(.assertionSignatureInvalid) { continue }
            guard let facts = outcome.facts, outcome.failures.isEmpty else {
                let names = outcome.failures.map(\.rawValue).joined(separator: ", ")
                throw WireError(.badRequest, "invalid_grant", "the App Attest assertion failed: \(names)")
            }
            return (clientData, facts)
        }
        throw WireError(.badRequest, "invalid_grant", "the App Attest assertion failed: \(AttestationFailure.assertionSignatureInvalid.rawValue)")
    }

    /// Android: `hardware_signature` by the registered key over one `client_data` spelling, in one of the
    /// `AndroidSignature` forms.
    static func androidSignature(
        _ request: WalletAttestationRequest, key: P256.Signing.PublicKey
    ) throws(WireError) -> (clientData: ClientData, form: AndroidSignature) {
        guard let der = Base64Any.decode(request.hardwareSignature),
            let signature = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else { throw WireError(.badRequest, "invalid_request", "hardware_signature is not a base64 DER ECDSA signature") }
        for clientData in request.clientDataCandidates {
            for form in AndroidSignature.allCases {
                let message = form == .overClientData ? clientData.bytes : clientData.hash
                if key.isValidSignature(signature, for: message) { return (clientData, form) }
            }
        }
        throw WireError(.badRequest, "invalid_grant", "hardware_signature does not verify with the registered key")
    }
}
