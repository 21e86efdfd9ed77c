import Crypto
import DeviceAttestation
#if canImport(DeviceCheck)
import DeviceCheck
#else
import DeviceCheckDouble
#endif
import Foundation

/// The Device Integrity Service on Apple platforms: App Attest (`DCAppAttestService`). The hardware key is the
/// App Attest key, its tag the keyId; the proofs of a Wallet Attestation request are one App Attest assertion over
/// client_data, sent in its two parts as the production IT-Wallet client does. App Attest keys cannot be deleted: `deleteKey` forgets nothing and a new activation makes a new key.
@available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, *)
public struct AppAttestIntegrityService: DeviceIntegrityService {
    /// The service over `DCAppAttestService.shared`; it holds no state of its own.
    public init() {}

    /// `attestKey` with clientDataHash = SHA-256(challenge).
    public func createAttestedKey(challenge: String) async throws(WalletInstanceError) -> AttestedKey {
        let service = DCAppAttestService.shared
        guard service.isSupported else { throw .integrity("App Attest is not supported on this device") }
        do {
            let keyID = try await service.generateKey()
            let attestation = try await service.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))))
            return AttestedKey(keyID: keyID, hardwareKeyTag: keyID, keyAttestation: attestation.base64EncodedString())
        } catch {
            throw .integrity("App Attest refused to attest the key: \(error.localizedDescription)")
        }
    }

    /// `generateAssertion` over SHA-256(client_data), split into `hardware_signature` (its DER signature) and
    /// `integrity_assertion` (its authenticator data).
    public func proofs(keyID: String, clientData: Data) async throws(WalletInstanceError) -> IntegrityProofs {
        let object: Data
        do {
            object = try await DCAppAttestService.shared.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: clientData)))
        } catch {
            throw .integrity("App Attest refused an assertion: \(error.localizedDescription)")
        }
        do {
            let assertion = try AppAttestAssertionObject(object)
            return IntegrityProofs(
                hardwareSignature: assertion.signature.base64EncodedString(),
                integrityAssertion: assertion.authenticatorData.base64EncodedString())
        } catch {
            throw .integrity("App Attest returned an assertion that is not a CBOR map: \(error)")
        }
    }

    /// Does nothing: App Attest keys cannot be deleted, so a new activation makes a new key instead.
    public func deleteKey(keyID: String) async {}
}
