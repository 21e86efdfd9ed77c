import Crypto
import Foundation
import TesseraCore

/// Who sent an envelope; part of its AAD, so an envelope cannot be reflected back to its sender.
public enum VaultDirection: String, Sendable, CaseIterable {
    case appToVault = "app-to-vault"
    case vaultToApp = "vault-to-app"
    case vaultToVault = "vault-to-vault"
}

/// The E2E keys (vault-design.md, "Wire formats"): HKDF-SHA256 (RFC 5869) of the X25519 (RFC 7748) shared secret,
/// salt `VettID-HKDF-Salt-v1`, 32 bytes. Both sides derive the same key from their private key and the other's
/// public key.
public enum VaultSessionKey {
    /// Computed, not stored: a `Data` held in a global is reported as a leak by LeakSanitizer in the fuzz targets.
    static var salt: Data { Data("VettID-HKDF-Salt-v1".utf8) }

    /// An app ↔ vault session: info `"app-vault-session-v1"` ‖ session_id.
    public static func derive(
        privateKey: Curve25519.KeyAgreement.PrivateKey, peerPublicKey: Data, sessionID: String
    ) throws(VaultProtocolError) -> SymmetricKey {
        try derive(privateKey, peerPublicKey, id: sessionID, info: "app-vault-session-v1")
    }

    /// A vault ↔ vault connection: info `"vault-connection-v1"` ‖ connection_id.
    public static func deriveConnection(
        privateKey: Curve25519.KeyAgreement.PrivateKey, peerPublicKey: Data, connectionID: String
    ) throws(VaultProtocolError) -> SymmetricKey {
        try derive(privateKey, peerPublicKey, id: connectionID, info: "vault-connection-v1")
    }

    private static func derive(
        _ privateKey: Curve25519.KeyAgreement.PrivateKey, _ peerPublicKey: Data, id: String, info: String
    ) throws(VaultProtocolError) -> SymmetricKey {
        guard VaultToken.isToken(id) else { throw .malformed("the session or connection id is not a token") }
        guard X25519Key.isCanonical(peerPublicKey), let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey)
        else { throw .invalidKey("the peer key is not a canonical 32-byte X25519 public key") }
        // RFC 7748 §6.1: a small-order peer point gives the all-zero shared secret, which every party can compute;
        // refuse it (swift-crypto does not on every platform).
        guard let shared = try? privateKey.sharedSecretFromKeyAgreement(with: peer),
            !shared.withUnsafeBytes({ ConstantTime.equal($0, [UInt8](repeating: 0, count: $0.count)) })
        else { throw .invalidKey("the peer key is a small-order point") }
        return shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data((info + id).utf8), outputByteCount: 32)
    }
}
