import Foundation

/// What the device keeps after enrollment: the sealed credential blob (it cannot open it), the LAT, the unused
/// transaction keys (UTKs) and its Ed25519 device key.
public struct VaultState: Codable, Sendable, Equatable {
    /// An unused transaction key (UTK): the ledger's X25519 public key a password hash is sealed to, once.
    public struct TransactionKey: Codable, Sendable, Equatable {
        /// The key's id, as the ledger's `use_key_id` names it.
        public var keyID: String
        /// The X25519 public key, raw, base64url.
        public var publicKey: String
    }

    /// The credential blob as the ledger sealed it (`Seal` to its CEK); the device keeps it and sends it back, it cannot open it.
    public struct Blob: Codable, Sendable, Equatable {
        /// The sealed bytes, base64url.
        public var ciphertext: String
        /// The seal's nonce, base64url.
        public var nonce: String
        /// The seal's ephemeral X25519 public key, base64url.
        public var epk: String
        /// The version of the CEK it is sealed to (part of its AAD, `user_guid|cek_version`).
        public var cekVersion: Int
    }

    /// The ledger's base URL, without a trailing slash.
    public var ledger: String
    /// The user's identifier at the ledger.
    public var userGUID: String
    /// The ledger's id of this device's credential.
    public var credentialID: String
    /// This device's id, as given at enrollment.
    public var deviceID: String
    /// Ed25519 private key (raw, base64url).
    public var devicePrivateKey: String
    /// The current credential blob.
    public var blob: Blob
    /// The id of the LAT the device holds.
    public var latID: String
    /// The ledger auth token (base64url): a secret of this device.
    public var latToken: String
    /// The LAT's version, sent with each action request so the ledger proves the LAT this device holds.
    public var latVersion: Int
    /// The unused transaction keys; each login uses one and the ledger tops them up.
    public var transactionKeys: [TransactionKey]
    /// The NATS bootstrap credentials from finalize, when the ledger has NATS.
    public var nats: [String: String]?
    /// The vault's Ed25519 identity public key (raw, base64url) from finalize, when the ledger has vault hosts: the
    /// key the vault's signed bootstrap reply must verify with.
    public var vaultIdentityPublicKey: String?
}

/// `vault.json` in a directory (0700), written 0600 to a new file and renamed over the old one, so a crash leaves
/// either the old state or the new, never half of one.
public struct VaultStateStore: Sendable {
    /// The directory holding `vault.json`.
    public let directory: URL
    /// `vault.json` in ``directory``.
    public var file: URL { directory.appendingPathComponent("vault.json") }

    /// A store in `directory`; nothing is written until the first save.
    public init(directory: URL) { self.directory = directory }

    /// The saved state; ``VaultError/notEnrolled`` when there is none.
    public func load() throws(VaultError) -> VaultState {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw .notEnrolled }
        do {
            return try JSONDecoder().decode(VaultState.self, from: data)
        } catch {
            throw .storage("\(file.path) is not a vault state")
        }
    }

    /// Replaces the saved state atomically (a new 0600 file renamed over the old one).
    public func save(_ state: VaultState) throws(VaultError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state) else { throw .storage("cannot encode the vault state") }
        try AtomicFile.write(data, to: file)
    }
}
