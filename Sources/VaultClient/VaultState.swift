import Foundation

/// What the device keeps after enrollment: the sealed credential blob (it cannot open it), the LAT, the unused
/// transaction keys (UTKs) and its Ed25519 device key.
public struct VaultState: Codable, Sendable, Equatable {
    public struct TransactionKey: Codable, Sendable, Equatable {
        public var keyID: String
        public var publicKey: String
    }

    public struct Blob: Codable, Sendable, Equatable {
        public var ciphertext: String
        public var nonce: String
        public var epk: String
        public var cekVersion: Int
    }

    public var ledger: String
    public var userGUID: String
    public var credentialID: String
    public var deviceID: String
    /// Ed25519 private key (raw, base64url).
    public var devicePrivateKey: String
    public var blob: Blob
    public var latID: String
    /// The ledger auth token (base64url): a secret of this device.
    public var latToken: String
    public var latVersion: Int
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
    public let directory: URL
    public var file: URL { directory.appendingPathComponent("vault.json") }

    public init(directory: URL) { self.directory = directory }

    public func load() throws(VaultError) -> VaultState {
        guard let data = FileManager.default.contents(atPath: file.path) else { throw .notEnrolled }
        do {
            return try JSONDecoder().decode(VaultState.self, from: data)
        } catch {
            throw .storage("\(file.path) is not a vault state")
        }
    }

    public func save(_ state: VaultState) throws(VaultError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state) else { throw .storage("cannot encode the vault state") }
        try AtomicFile.write(data, to: file)
    }
}
