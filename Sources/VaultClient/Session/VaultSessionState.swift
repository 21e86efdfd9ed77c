import Foundation

/// What the app keeps between runs to talk to its vault without bootstrapping again: the full NATS credentials and
/// the E2E session. Secret (the creds hold a NATS seed, the session key decrypts everything), so it lives in a
/// `VaultSessionKeyStore`, never in plain app storage.
public struct VaultSessionState: Codable, Sendable, Equatable {
    /// The user the session belongs to.
    public var userGUID: String
    /// The vault's Ed25519 identity public key (from the ledger at enrollment), base64url.
    public var identityPublicKey: String
    /// Where the app's bus is, as the bootstrap reply said.
    public var natsEndpoint: String
    /// The creds file text of the app's full NATS user.
    public var credentials: String
    /// The id of the NATS credentials, as the vault knows them.
    public var credentialID: String
    /// When the NATS credentials expire (Unix seconds); ``VaultConnection/refreshCredentials(requestedTTLHours:)`` renews them.
    public var credentialsExpireAt: Int64
    /// The E2E session's id, in every envelope's AAD.
    public var sessionID: String
    /// The 32-byte session key, base64url.
    public var sessionKey: String
    /// When the session was made (Unix seconds); it is rotated after 24 hours or 1000 messages, whichever comes first.
    public var sessionCreatedAt: Int64
    /// When the vault stops accepting the session (Unix seconds), from the bootstrap or rotation answer.
    public var sessionExpiresAt: Int64
    /// Sequence numbers up to here may have been used: the next run starts above it (reserved in blocks).
    public var sendReserved: UInt64
    /// Messages sent under this session (rotation after 1000).
    public var messagesSent: Int
}

/// Where the app keeps its `VaultSessionState`: the platform's key store in an app (Keychain on Apple platforms),
/// a 0600 file for the CLI and tests.
public protocol VaultSessionKeyStore: Sendable {
    /// The saved session, or nil when there is none.
    func loadSession() throws(VaultError) -> VaultSessionState?
    /// Replaces the saved session; called before anything that depends on it is used.
    func saveSession(_ state: VaultSessionState) throws(VaultError)
    /// Forgets the saved session (the next run bootstraps again).
    func deleteSession() throws(VaultError)
}

/// `vault-session.json` (0600) next to `vault.json`, replaced atomically.
public struct FileVaultSessionKeyStore: VaultSessionKeyStore {
    /// The directory holding `vault-session.json`.
    public let directory: URL
    /// `vault-session.json` in ``directory``.
    public var file: URL { directory.appendingPathComponent("vault-session.json") }

    /// A store in `directory`; nothing is written until the first save.
    public init(directory: URL) { self.directory = directory }

    /// Reads `vault-session.json`; nil when there is none, an error when it does not decode.
    public func loadSession() throws(VaultError) -> VaultSessionState? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        guard let state = try? JSONDecoder().decode(VaultSessionState.self, from: data) else {
            throw .storage("\(file.path) is not a vault session")
        }
        return state
    }

    /// Replaces `vault-session.json` atomically (a new 0600 file renamed over the old one).
    public func saveSession(_ state: VaultSessionState) throws(VaultError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(state) else { throw .storage("cannot encode the vault session") }
        try AtomicFile.write(data, to: file)
    }

    /// Deletes `vault-session.json` if it exists.
    public func deleteSession() throws(VaultError) {
        try? FileManager.default.removeItem(at: file)
    }
}

/// Write to a new 0600 file, then rename it over the old one: a crash leaves the old file or the new, never half.
enum AtomicFile {
    static func write(_ data: Data, to file: URL) throws(VaultError) {
        let fm = FileManager.default
        let directory = file.deletingLastPathComponent()
        do {
            try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .storage("cannot create \(directory.path)")
        }
        let temporary = directory.appendingPathComponent("." + file.lastPathComponent + ".new")
        try? fm.removeItem(at: temporary)
        guard fm.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]),
            rename(temporary.path, file.path) == 0
        else { throw .storage("cannot write \(file.path)") }
    }
}
