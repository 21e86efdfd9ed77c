import Foundation

/// What the ledger needs from the vault hosts (issue 13, "Vault hosts and lifecycle"). The `Vault` module is on the
/// ledger's own layer and cannot be imported here: whoever runs both (the `tessera` executable) injects an
/// implementation through `LedgerConfiguration.vault`.
public protocol LedgerVaultLifecycle: Sendable {
    /// At enrollment finalize: creates the user's vault record and Ed25519 identity key; returns the identity
    /// public key (raw 32 bytes) that the app will use to check the vault's signed bootstrap reply. Idempotent per user.
    func provision(userGUID: String, now: Date) async throws -> Data
    /// nil: the user has no vault.
    func status(userGUID: String) async throws -> LedgerVaultStatus?
    func start(userGUID: String, now: Date) async throws -> LedgerVaultStatus
    func stop(userGUID: String, now: Date) async throws -> LedgerVaultStatus
    /// Deletes the vault's data and revokes its NATS identity. Idempotent: a terminated vault stays terminated.
    func terminate(userGUID: String, now: Date) async throws -> LedgerVaultStatus
    /// Throws when the backend cannot serve (its database is unreachable, …). `GET /vault/health` answers from it.
    func health() async throws
}

extension LedgerVaultLifecycle {
    /// The default probe: a status read for a guid no user has, which reaches the backend's store without touching
    /// any vault. A backend with a cheaper or deeper check implements `health()` itself.
    public func health() async throws {
        _ = try await status(userGUID: "00000000-0000-0000-0000-000000000000")
    }
}

/// A vault as the lifecycle endpoints show it.
public struct LedgerVaultStatus: Sendable, Equatable {
    /// "provisioning", "running", "stopping", "stopped", "terminated".
    public var state: String
    /// "running", "stopped", "terminated".
    public var desiredState: String
    /// 0…100: provisioning progress the app can poll.
    public var progress: Int
    /// The host holding the vault's lease, if any.
    public var host: String?
    public var updatedAt: Date
    /// Ed25519, raw 32 bytes.
    public var identityPublicKey: Data

    public init(state: String, desiredState: String, progress: Int, host: String?, updatedAt: Date, identityPublicKey: Data) {
        self.state = state
        self.desiredState = desiredState
        self.progress = progress
        self.host = host
        self.updatedAt = updatedAt
        self.identityPublicKey = identityPublicKey
    }

    public static let terminated = "terminated"
}

/// Refusals a backend may throw so that the ledger answers them precisely (anything else is 503).
public enum LedgerVaultLifecycleError: Error, Sendable, Equatable {
    /// The user has no vault: 404 `vault_not_found`.
    case vaultNotFound
    /// The vault was terminated and cannot run again: 409 `vault_terminated`.
    case vaultTerminated
}
