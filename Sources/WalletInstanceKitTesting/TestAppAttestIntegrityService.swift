import Crypto
import DeviceAttestation
import DeviceAttestationTesting
import Foundation
import WalletInstanceKit
import HolderKit
import Synchronization
import TesseraCore
import TesseraCOSE

/// A simulated iOS device for tests and demos on Linux: the hardware key lives in the `KeyStore`, its attestation
/// object and assertions have App Attest's exact format (`AppAttestTestAuthority`), and the hardware key tag is the
/// keyId (base64), as on a device. Each assertion takes the next value of the key's counter; the counters live in
/// memory (a device keeps them in the Secure Enclave), so they restart at 0 with the service.
public final class TestAppAttestIntegrityService: DeviceIntegrityService {
    public let keys: any KeyStore
    public let authority: AppAttestTestAuthority
    public let app: AppAttestAppID
    public let environment: AppAttestEnvironment
    public let clock: any TesseraClock
    private let counters = Mutex<[String: UInt32]>([:])

    public init(
        keys: any KeyStore, authority: AppAttestTestAuthority, app: AppAttestAppID,
        environment: AppAttestEnvironment = .production, clock: any TesseraClock = SystemClock()
    ) {
        self.keys = keys
        self.authority = authority
        self.app = app
        self.environment = environment
        self.clock = clock
    }

    /// `attestKey` with clientDataHash = SHA-256(challenge), as the IT-Wallet apps call it.
    public func createAttestedKey(challenge: String) async throws(WalletInstanceError) -> AttestedKey {
        do {
            let id = try keys.createDeviceKey()
            let publicKey = try P256.Signing.PublicKey(coseKey: try keys.deviceKey(id: id).publicKey)
            let attested = try authority.attest(
                publicKey: publicKey, app: app, environment: environment,
                clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), at: clock.now())
            return AttestedKey(
                keyID: id, hardwareKeyTag: attested.keyID.base64EncodedString(),
                keyAttestation: attested.attestationObject.base64EncodedString())
        } catch {
            throw .integrity("cannot create an attested key: \(error)")
        }
    }

    /// One App Attest assertion over client_data (the next counter value), sent in two parts as the production
    /// IT-Wallet client does: its DER `signature` and its `authenticatorData`, base64.
    public func proofs(keyID: String, clientData: Data) async throws(WalletInstanceError) -> IntegrityProofs {
        let assertion = try await assertion(keyID: keyID, clientData: clientData)
        return IntegrityProofs(
            hardwareSignature: assertion.signature.base64EncodedString(),
            integrityAssertion: assertion.authenticatorData.base64EncodedString())
    }

    public func deleteKey(keyID: String) async {
        try? keys.deleteKey(id: keyID)
        counters.withLock { _ = $0.removeValue(forKey: keyID) }
    }

    private func assertion(keyID: String, clientData: Data) async throws(WalletInstanceError) -> (signature: Data, authenticatorData: Data) {
        let counter = counters.withLock { counters -> UInt32 in
            let next = (counters[keyID] ?? 0) &+ 1
            counters[keyID] = next
            return next
        }
        let authenticatorData = AppAttestTestAuthority.assertionAuthenticatorData(app: app, counter: counter)
        let nonce = AppAttestTestAuthority.assertionNonce(authenticatorData: authenticatorData, clientData: clientData)
        do {
            let raw = try await keys.deviceKey(id: keyID).sign(nonce)
            let der = try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
            return (der, authenticatorData)
        } catch {
            throw .integrity("the hardware key cannot sign")
        }
    }
}
