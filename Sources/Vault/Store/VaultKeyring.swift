import Crypto
import Foundation
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// A user's data key (32 random bytes, sealed at rest with `vault-master.key`): encrypts every value the vault stores
/// for the user (ChaCha20-Poly1305, AAD = table|user|row, so a value cannot be moved to another row or user) and
/// names records by an HMAC, so equal names are found without being readable.
struct VaultKeyring: Sendable {
    let user: String
    private let encryption: SymmetricKey
    private let naming: SymmetricKey

    init(user: String, dataKey: SymmetricKey) {
        self.user = user
        encryption = HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, info: Data("tessera-vault-encryption-v1".utf8), outputByteCount: 32)
        naming = HKDF<SHA256>.deriveKey(inputKeyMaterial: dataKey, info: Data("tessera-vault-naming-v1".utf8), outputByteCount: 32)
    }

    /// base64url(nonce ‖ ciphertext ‖ tag).
    func seal(_ plaintext: Data, table: String, row: String) throws(WireError) -> String {
        guard let box = try? ChaChaPoly.seal(plaintext, using: encryption, authenticating: aad(table, row)) else { throw .server }
        return Base64URL.encode(box.combined)
    }

    func open(_ sealed: String, table: String, row: String) throws(WireError) -> Data {
        guard let bytes = try? Base64URL.decode(sealed), let box = try? ChaChaPoly.SealedBox(combined: bytes),
            let plaintext = try? ChaChaPoly.open(box, using: encryption, authenticating: aad(table, row))
        else { throw .server }
        return plaintext
    }

    /// The stored name of a record: HMAC-SHA256(naming key, collection|name), base64url.
    func recordName(collection: String, name: String) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data("\(collection)|\(name)".utf8), using: naming)))
    }

    private func aad(_ table: String, _ row: String) -> Data { Data("\(table)|\(user)|\(row)".utf8) }
}
