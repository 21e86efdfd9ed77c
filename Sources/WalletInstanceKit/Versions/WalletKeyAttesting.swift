import Crypto
import Foundation

/// The platform's wallet keys (the WSCD) as a Key Attestation Request needs them (IT-Wallet 1.3 "Wallet Unit
/// Attestation", 1.5.0 "Key Attestation"): a new key, its platform attestation bound to the provider's nonce
/// (Android Key Attestation with the nonce as challenge), and signatures by it (each `keys_to_attest` element is
/// signed by the key it names). On Linux the test integrity service conforms (WalletInstanceKitTesting).
public protocol WalletKeyAttesting: Sendable {
    /// A new wallet key and its platform attestation for `challenge`.
    func createWalletKey(challenge: String) async throws(WalletInstanceError) -> AttestedWalletKey
    /// ES256 by the wallet key `keyID` over `message` (SHA-256 inside), raw `r‖s`.
    func sign(walletKeyID keyID: String, _ message: Data) async throws(WalletInstanceError) -> Data
}

/// A wallet key just created for a Key Attestation.
public struct AttestedWalletKey: Sendable {
    /// Its id in the platform's key store.
    public let keyID: String
    /// Its public key.
    public let publicKey: P256.Signing.PublicKey
    /// Android: `wscd_key_attestation.attestation`, base64 of the comma-separated base64 DER chain (the IT-Wallet
    /// reference apps' spelling); nil on iOS.
    public let androidAttestation: String?

    /// A key as the platform created it.
    public init(keyID: String, publicKey: P256.Signing.PublicKey, androidAttestation: String?) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.androidAttestation = androidAttestation
    }
}

/// A Key Attestation the wallet obtained and keeps.
public struct KeptKeyAttestation: Codable, Sendable, Equatable {
    /// The version it was asked in.
    public var version: String
    /// The `key-attestation+jwt` as received.
    public var jwt: String
    /// The attested wallet keys' ids in the key store, in `attested_keys` order.
    public var keyIDs: [String]
    /// Its `exp`.
    public var expiresAt: Date

    /// A kept Key Attestation as the wallet stores it.
    public init(version: String, jwt: String, keyIDs: [String], expiresAt: Date) {
        self.version = version
        self.jwt = jwt
        self.keyIDs = keyIDs
        self.expiresAt = expiresAt
    }
}
