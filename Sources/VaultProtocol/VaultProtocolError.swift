import Foundation

/// Everything that can be wrong with a vault message. Descriptions name the rule and never carry key material.
public enum VaultProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not the expected JSON shape: the text names the field.
    case malformed(String)
    /// Larger than the limit for its kind.
    case tooLarge(limit: Int)
    case unsupportedVersion(Int)
    /// The bootstrap reply's signature does not verify with the vault's identity key.
    case badSignature
    /// The bootstrap reply is not an answer to this request (event id, echoed key or time differ).
    case bindingMismatch(String)
    /// The signed bootstrap reply is a genuine answer that reports a failure (`success: false`).
    case eventFailed(VaultEventError)
    /// ChaCha20-Poly1305 refused the ciphertext (wrong key, subject, direction, sequence or a changed byte).
    case decryptionFailed
    /// Sealing was impossible: the key is not 256 bits or the random source did not deliver a nonce.
    case encryptionFailed
    /// The identity key could not sign.
    case signingFailed
    case invalidKey(String)

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed vault message: \(why)"
        case .tooLarge(let limit): return "vault message larger than \(limit) bytes"
        case .unsupportedVersion(let version): return "unsupported envelope version \(version)"
        case .badSignature: return "the bootstrap reply is not signed by the vault's identity key"
        case .bindingMismatch(let why): return "the bootstrap reply does not answer this request: \(why)"
        case .eventFailed(let error): return "the vault answered with the error \(error.code)"
        case .decryptionFailed: return "decryption failed"
        case .encryptionFailed: return "encryption failed (a 256-bit key and a 12-byte nonce are needed)"
        case .signingFailed: return "the identity key could not sign"
        case .invalidKey(let why): return "invalid key: \(why)"
        }
    }
}
