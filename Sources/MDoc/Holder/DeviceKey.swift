import Crypto
import Foundation
import TesseraCOSE

/// The holder's device key (SDeviceKey, §9.1.3): signs DeviceAuthentication without handing out
/// the private key, so a Secure Enclave or Android Keystore key fits behind it. Async because
/// such keys may ask the user first.
public protocol DeviceKeySigner: Sendable {
    /// The public key the issuer bound into the MSO.
    var publicKey: COSEKey { get }
    /// ES256 today (§9.1.3.6: the curve of the device key).
    var algorithm: COSEAlgorithm { get }
    /// Signs `message` (the COSE Sig_structure) and returns raw `r‖s`.
    func sign(_ message: Data) async throws -> Data
    /// ECDH with the reader's ephemeral key, for DeviceMac (§9.1.3.5). Keys that cannot agree throw.
    func sharedSecret(with peer: COSEKey) async throws -> SharedSecret
}

/// A device key held in process memory: for tests, test wallets and the demo.
public struct SoftwareDeviceKey: DeviceKeySigner {
    /// The P-256 private key; it signs and, for DeviceMac, agrees.
    public let signingKey: P256.Signing.PrivateKey

    /// Wraps `key`; nothing is copied out of process memory.
    public init(_ key: P256.Signing.PrivateKey) { self.signingKey = key }

    /// The EC2 P-256 public key to bind into the MSO.
    public var publicKey: COSEKey { COSEKey(signingKey.publicKey) }
    /// Always ES256 (COSE -7): the key is P-256.
    public var algorithm: COSEAlgorithm { .es256 }

    /// ECDSA P-256 with SHA-256 over `message`; the signature is raw `r‖s` (64 bytes), as COSE wants.
    public func sign(_ message: Data) async throws -> Data {
        try signingKey.signature(for: message).rawRepresentation
    }

    /// ECDH P-256 with `peer` (the same scalar used as a key-agreement key).
    /// - Throws: when `peer` is not an EC2 P-256 key.
    public func sharedSecret(with peer: COSEKey) async throws -> SharedSecret {
        let agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: signingKey.rawRepresentation)
        return try agreement.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(coseKey: peer))
    }
}
