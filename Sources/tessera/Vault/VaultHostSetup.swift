import Foundation
import Ledger
import NATSClient
import ServiceSupport
import TesseraCore
import Vault

/// The vault hosts' side of a deployment as the CLI sets it up: the operator directory (NATS operator seeds and
/// `vault-master.key`, shared by the ledger and every host) and the hosts' database.
struct VaultHostSetup {
    let directory: URL
    let database: ServiceDatabase

    /// `database` (else $DATABASE_URL, else `vault.sqlite` in the operator directory).
    init(operatorDirectory: URL, database: String?) throws {
        let url = database ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? operatorDirectory.appendingPathComponent("vault.sqlite").path
        do {
            try FileManager.default.createDirectory(at: operatorDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            self.database = try ServiceDatabase(url: url)
        } catch {
            throw UserFacingError("--vault-database: \(error)")
        }
        directory = operatorDirectory
    }

    var configuration: VaultHostConfiguration { VaultHostConfiguration(directory: directory, database: database) }

    func open(migration: MigrationPolicy = .automatic) async throws -> VaultDatabase {
        var configuration = configuration
        configuration.migration = migration
        do {
            return try await VaultDatabase.open(configuration)
        } catch {
            throw UserFacingError("the vault database: \(error)")
        }
    }
}

/// The ledger's lifecycle endpoints backed by the vault hosts' database (the two services share it; the ledger only
/// writes desired states, the hosts' lease loops act on them).
struct VaultLifecycleBackend: LedgerVaultLifecycle {
    let vaults: VaultDirectory

    func provision(userGUID: String, now: Date) async throws -> Data {
        try await vaults.provision(userGUID: userGUID, now: now)
    }

    func status(userGUID: String) async throws -> LedgerVaultStatus? {
        try await vaults.status(userGUID: userGUID).map(Self.status)
    }

    func start(userGUID: String, now: Date) async throws -> LedgerVaultStatus {
        try await change(userGUID) { try await vaults.start(userGUID: userGUID, now: now) }
    }

    func stop(userGUID: String, now: Date) async throws -> LedgerVaultStatus {
        try await change(userGUID) { try await vaults.stop(userGUID: userGUID, now: now) }
    }

    func terminate(userGUID: String, now: Date) async throws -> LedgerVaultStatus {
        guard let status = try await vaults.terminate(userGUID: userGUID, now: now) else { throw LedgerVaultLifecycleError.vaultNotFound }
        return Self.status(status)
    }

    private func change(_ user: String, _ body: () async throws -> VaultDirectory.Status?) async throws -> LedgerVaultStatus {
        guard let status = try await body() else { throw LedgerVaultLifecycleError.vaultNotFound }
        if status.desiredState == LedgerVaultStatus.terminated { throw LedgerVaultLifecycleError.vaultTerminated }
        return Self.status(status)
    }

    static func status(_ status: VaultDirectory.Status) -> LedgerVaultStatus {
        LedgerVaultStatus(
            state: status.state, desiredState: status.desiredState, progress: status.progress, host: status.host,
            updatedAt: status.updatedAt, identityPublicKey: status.identityPublicKey)
    }
}
