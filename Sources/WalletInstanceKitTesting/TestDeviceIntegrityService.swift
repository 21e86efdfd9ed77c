import Crypto
import DeviceAttestation
import DeviceAttestationTesting
import Foundation
import WalletInstanceKit
import HolderKit
import MDoc
import TesseraCore
import TesseraCOSE
import TesseraJOSE
import X509

/// A Device Integrity Service for Linux and tests: the hardware key lives in the `KeyStore`; its key attestation
/// is a real Android-format chain (leaf with the KeyDescription extension, intermediate, root) from an
/// `AndroidTestAttestationAuthority`, and its integrity assertions are Play-Integrity-shaped tokens signed by a
/// certificate of that authority (x5c). A provider trusts neither unless it is started with the test root.
public struct TestDeviceIntegrityService: DeviceIntegrityService {
    public let keys: any KeyStore
    public let authority: AndroidTestAttestationAuthority
    public let application: AndroidApplication
    public let clock: any TesseraClock

    public init(keys: any KeyStore, authority: AndroidTestAttestationAuthority, application: AndroidApplication, clock: any TesseraClock = SystemClock()) {
        self.keys = keys
        self.authority = authority
        self.application = application
        self.clock = clock
    }

    public func createAttestedKey(challenge: String) async throws(WalletInstanceError) -> AttestedKey {
        do {
            let id = try keys.createDeviceKey()
            let publicKey = try P256.Signing.PublicKey(coseKey: try keys.deviceKey(id: id).publicKey)
            let chain = try authority.attest(
                publicKey: publicKey, challenge: Data(challenge.utf8), application: application, at: clock.now())
            let joined = chain.map { $0.base64EncodedString() }.joined(separator: ",")
            return AttestedKey(keyID: id, hardwareKeyTag: id, keyAttestation: Data(joined.utf8).base64EncodedString())
        } catch {
            throw .integrity("cannot create an attested key: \(error)")
        }
    }

    /// The hardware signature and the Play-Integrity-shaped token over `clientData`.
    public func proofs(keyID: String, clientData: Data) async throws(WalletInstanceError) -> IntegrityProofs {
        IntegrityProofs(
            hardwareSignature: try await hardwareSignature(keyID: keyID, clientData: clientData),
            integrityAssertion: try integrityAssertion(clientData: clientData))
    }

    /// ECDSA P-256 (DER, base64) over SHA-256(client_data): the IT-Wallet texts' "signature of client_data_hash".
    func hardwareSignature(keyID: String, clientData: Data) async throws(WalletInstanceError) -> String {
        do {
            let raw = try await keys.deviceKey(id: keyID).sign(Data(SHA256.hash(data: clientData)))
            return try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation.base64EncodedString()
        } catch {
            throw .integrity("the hardware key cannot sign")
        }
    }

    func integrityAssertion(clientData: Data) throws(WalletInstanceError) -> String {
        let hash = SHA256.hash(data: clientData).map { String(format: "%02x", $0) }.joined()
        let millis = Int64(clock.now().timeIntervalSince1970 * 1000)
        let claims: JSONObject = [
            "requestDetails": [
                "requestPackageName": .string(application.packageName), "requestHash": .string(hash),
                "timestampMillis": .string(String(millis)),
            ],
            "appIntegrity": [
                "appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": .string(application.packageName),
                "certificateSha256Digest": .array(application.signingCertificateDigests.map { .string(Base64URL.encode($0)) }),
            ],
            "deviceIntegrity": ["deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"]],
            "accountDetails": ["appLicensingVerdict": "LICENSED"],
        ]
        do {
            let signer = try authority.integritySigner(at: clock.now())
            let header: JSONObject = ["typ": "JWT", "x5c": .array(signer.chain.map { .string($0.base64EncodedString()) })]
            return try CompactJWS.sign(header: header, claims: claims, key: .es256(signer.key)).compact
        } catch {
            throw .integrity("cannot sign the integrity token")
        }
    }

    public func deleteKey(keyID: String) async { try? keys.deleteKey(id: keyID) }
}
