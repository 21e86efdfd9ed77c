import Crypto
import DeviceAttestation
import Foundation
import TesseraCOSE
import WalletInstanceKit

/// Wallet keys for Key Attestation on Linux and in tests: software P-256 keys in the `KeyStore`, each attested by
/// the test authority in Android format with the provider's nonce as challenge.
extension TestDeviceIntegrityService: WalletKeyAttesting {
    public func createWalletKey(challenge: String) async throws(WalletInstanceError) -> AttestedWalletKey {
        let key = try await createAttestedKey(challenge: challenge)
        do {
            let publicKey = try P256.Signing.PublicKey(coseKey: try keys.deviceKey(id: key.keyID).publicKey)
            return AttestedWalletKey(keyID: key.keyID, publicKey: publicKey, androidAttestation: key.keyAttestation)
        } catch {
            throw .integrity("the new wallet key cannot be read back")
        }
    }

    public func sign(walletKeyID keyID: String, _ message: Data) async throws(WalletInstanceError) -> Data {
        do {
            return try await keys.deviceKey(id: keyID).sign(message)
        } catch {
            throw .integrity("the wallet key cannot sign")
        }
    }
}
