import Crypto
import Foundation
import HolderKit
import TesseraJOSE
import TesseraCore

/// The platform's Device Integrity Service (IT-Wallet): attests the hardware key at registration and proves the
/// app and device with each Wallet Attestation request. App Attest on Apple platforms
/// (`AppAttestIntegrityService`), Key Attestation + Play Integrity on Android, `TestDeviceIntegrityService` on Linux.
public protocol DeviceIntegrityService: Sendable {
    /// Creates the hardware key and attests it for `challenge`: the `key_attestation` to send (base64) and the
    /// `hardware_key_tag` the provider will know the key by, plus the key's id in the `KeyStore` (if it uses one).
    func createAttestedKey(challenge: String) async throws(WalletInstanceError) -> AttestedKey
    /// `hardware_signature` (the hardware key over `clientData`) and `integrity_assertion` (the platform's verdict
    /// bound to `clientData`) for a Wallet Attestation request.
    func proofs(keyID: String, clientData: Data) async throws(WalletInstanceError) -> IntegrityProofs
    /// Deletes the hardware key (IT-Wallet: an existing key is deleted before a new one is made).
    func deleteKey(keyID: String) async
}

/// A hardware key just created and attested (IT-Wallet Wallet Instance Initialization and Registration).
public struct AttestedKey: Sendable {
    /// The key's identifier in the service (a `KeyStore` id, or the App Attest keyId), for ``DeviceIntegrityService/proofs(keyID:clientData:)``.
    public let keyID: String
    /// `hardware_key_tag`: how the provider knows the key; the instance id is derived from it (``InstanceID``).
    public let hardwareKeyTag: String
    /// `key_attestation`, base64: the App Attest attestation object or the Android key attestation chain.
    public let keyAttestation: String
    /// An attested key from its three parts.
    public init(keyID: String, hardwareKeyTag: String, keyAttestation: String) {
        self.keyID = keyID
        self.hardwareKeyTag = hardwareKeyTag
        self.keyAttestation = keyAttestation
    }
}

/// The two proofs of a Wallet Attestation request, base64 (or a JWS for a Play Integrity token).
public struct IntegrityProofs: Sendable {
    /// `hardware_signature`: the hardware key's signature over `client_data`.
    public let hardwareSignature: String
    /// `integrity_assertion`: the platform's verdict bound to `client_data` (App Attest authenticator data, or a
    /// Play Integrity token).
    public let integrityAssertion: String
    /// Proofs from their two parts.
    public init(hardwareSignature: String, integrityAssertion: String) {
        self.hardwareSignature = hardwareSignature
        self.integrityAssertion = integrityAssertion
    }
}

/// The provider's instance id for a hardware key tag: base64url(SHA-256(tag)).
public enum InstanceID {
    /// The instance id of `tag`, as the provider's `/api/wallet-instances/{id}` paths name it.
    public static func of(_ tag: String) -> String { Base64URL.encode(SHA256.hash(data: Data(tag.utf8))) }
}
