import Crypto
import Foundation
import TesseraCore
import TesseraJOSE

/// The purposes a sealed box is made for; each is the HKDF `info`, so a box made for one cannot be opened as another.
public enum SealInfo: String, Sendable, CaseIterable {
    /// The password hash, sealed by the device to a transaction key (UTK) of the ledger.
    case transactionEncryption = "transaction-encryption-v1"
    /// The credential blob, sealed by the ledger to its CEK.
    case credentialEncryption = "credential-encryption-v1"
    /// The app ↔ vault session (personal vault, part 2).
    case appVaultSession = "app-vault-session-v1"
}

/// `{epk, nonce, ciphertext}`: an ephemeral X25519 public key, a 12-byte ChaCha20-Poly1305 nonce and the ciphertext
/// with its 16-byte tag. On the wire each is base64url without padding.
public struct SealedBox: Sendable, Equatable {
    public let epk: Data
    public let nonce: Data
    public let ciphertext: Data

    public init(epk: Data, nonce: Data, ciphertext: Data) throws(LedgerProtocolError) {
        guard epk.count == 32 else { throw .malformed("epk must be a 32-byte X25519 public key") }
        guard nonce.count == 12 else { throw .malformed("nonce must be 12 bytes") }
        guard ciphertext.count >= 16, ciphertext.count <= Seal.maxCiphertextBytes else { throw .malformed("ciphertext has an impossible length") }
        self.epk = epk
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    public var json: JSONObject {
        ["ciphertext": .string(Base64URL.encode(ciphertext)), "nonce": .string(Base64URL.encode(nonce)), "epk": .string(Base64URL.encode(epk))]
    }

    public init(json: JSONObject?) throws(LedgerProtocolError) {
        guard let json, let epk = Base64URL.bytes(json["epk"]?.stringValue),
            let nonce = Base64URL.bytes(json["nonce"]?.stringValue),
            let ciphertext = Base64URL.bytes(json["ciphertext"]?.stringValue)
        else { throw .malformed("a sealed box is {ciphertext, nonce, epk}, each base64url") }
        try self.init(epk: epk, nonce: nonce, ciphertext: ciphertext)
    }
}

/// `Seal(recipientPublicKey, info, aad, plaintext)`: ECDH of a fresh ephemeral X25519 key with the recipient's,
/// HKDF-SHA256 (salt `VettID-HKDF-Salt-v1`, the purpose as info) to a 256-bit key, ChaCha20-Poly1305 with a random
/// 12-byte nonce and the caller's AAD. Opening fails closed on any mismatch.
public enum Seal {
    /// Computed, not stored: a `Data` held in a global is reported as a leak by LeakSanitizer in the fuzz targets.
    public static var hkdfSalt: Data { Data("VettID-HKDF-Salt-v1".utf8) }
    /// Boxes carry a password hash or a credential blob: 64 KiB is far above either.
    public static let maxCiphertextBytes = 64 * 1024

    public static func seal(
        to recipient: Curve25519.KeyAgreement.PublicKey, info: SealInfo, aad: Data, plaintext: Data, random: any RandomSource
    ) throws(LedgerProtocolError) -> SealedBox {
        guard let ephemeral = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32)) else { throw .keyGeneration }
        guard let nonce = try? ChaChaPoly.Nonce(data: random.bytes(12)),
            let key = try? symmetricKey(ephemeral, recipient, info),
            let box = try? ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        else { throw .keyGeneration }
        return try SealedBox(epk: ephemeral.publicKey.rawRepresentation, nonce: Data(nonce), ciphertext: box.ciphertext + box.tag)
    }

    public static func open(
        _ box: SealedBox, with recipient: Curve25519.KeyAgreement.PrivateKey, info: SealInfo, aad: Data
    ) throws(LedgerProtocolError) -> Data {
        guard isCanonical(box.epk), let epk = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: box.epk),
            let nonce = try? ChaChaPoly.Nonce(data: box.nonce),
            let key = try? symmetricKey(recipient, epk, info),
            let sealed = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: box.ciphertext.dropLast(16), tag: box.ciphertext.suffix(16)),
            let plaintext = try? ChaChaPoly.open(sealed, using: key, authenticating: aad)
        else { throw .openFailed }
        return plaintext
    }

    /// RFC 7748 §5: X25519 ignores the top bit of a u-coordinate and reduces values ≥ 2²⁵⁵ − 19, so one key has
    /// several encodings that give the same shared secret. The epk is not an input of the HKDF, so without this check
    /// a box with its epk's top bit flipped would still open. Only the canonical encoding (what every X25519
    /// implementation sends) is accepted.
    public static func isCanonical(_ u: Data) -> Bool {
        let bytes = [UInt8](u)
        guard bytes.count == 32, bytes[31] & 0x80 == 0 else { return false }
        // Below p = 2²⁵⁵ − 19 = 0x7fff…ffed (little-endian: ed ff … ff 7f).
        return bytes[31] < 0x7f || bytes[1..<31].contains { $0 != 0xff } || bytes[0] < 0xed
    }

    private static func symmetricKey(
        _ own: Curve25519.KeyAgreement.PrivateKey, _ peer: Curve25519.KeyAgreement.PublicKey, _ info: SealInfo
    ) throws -> SymmetricKey {
        try own.sharedSecretFromKeyAgreement(with: peer)
            .hkdfDerivedSymmetricKey(using: SHA256.self, salt: hkdfSalt, sharedInfo: Data(info.rawValue.utf8), outputByteCount: 32)
    }
}
