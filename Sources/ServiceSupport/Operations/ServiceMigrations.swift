import Fluent
import Foundation
import Logging
import PostgresKit
import PostgresNIO
import SQLKit
import Vapor

/// What a service does with its schema at start-up (issue 29).
public enum MigrationPolicy: Sendable, Equatable {
    /// Runs the pending migrations (`--auto-migrate`; the default for the embedded SQLite and for library users).
    case automatic
    /// Runs none and refuses to start while any is pending: an operator runs `tessera SERVICE migrate` once, then
    /// starts as many instances as they like, at once, without two migrators racing on one database.
    case verifyOnly
}

/// The schema is behind the code and the policy forbids migrating at start-up.
public struct PendingMigrationsError: Error, Sendable, CustomStringConvertible {
    public let service: String
    public let pending: [String]
    public var description: String {
        "\(pending.count) database migration(s) pending (\(pending.joined(separator: ", "))): run `tessera \(service) migrate` first, "
            + "or start with --auto-migrate"
    }
}

enum ServiceMigrations {
    /// Applies `policy` to the registered migrations. On PostgreSQL the migrator runs under a session advisory lock
    /// held on a connection of its own, so two `migrate` runs (or two auto-migrating instances) take turns instead of
    /// colliding on Fluent's bookkeeping table; the second finds nothing left to do.
    /// Returns the names of the migrations it ran.
    @discardableResult
    static func apply(
        _ policy: MigrationPolicy, migrations: [any Migration], app: Application, database: ServiceDatabase, service: String
    ) async throws -> [String] {
        switch policy {
        case .verifyOnly:
            let pending = try await unapplied(migrations, app: app, sqlite: database.isSQLite)
            guard pending.isEmpty else { throw PendingMigrationsError(service: service, pending: pending) }
            return []
        case .automatic:
            guard case .postgres(let url) = database else { return try await migrate(app) }
            return try await withAdvisoryLock(url: url, logger: app.logger) { try await migrate(app) }
        }
    }

    /// The registered migrations Fluent's bookkeeping table does not list, read without writing anything (an
    /// instance that must not migrate must not create that table either); all of them when the table is missing.
    private static func unapplied(_ migrations: [any Migration], app: Application, sqlite: Bool) async throws -> [String] {
        guard let sql = app.db as? any SQLDatabase else { return migrations.map(\.name) }
        let exists = try await sql.raw(sqlite
            ? "SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = '_fluent_migrations'"
            : "SELECT 1 AS present FROM information_schema.tables WHERE table_name = '_fluent_migrations' AND table_schema = current_schema()"
        ).first() != nil
        guard exists else { return migrations.map(\.name) }
        let applied = Set(try await sql.raw("SELECT name FROM _fluent_migrations").all().map { try $0.decode(column: "name", as: String.self) })
        return migrations.map(\.name).filter { !applied.contains($0) }
    }

    private static func migrate(_ app: Application) async throws -> [String] {
        try await app.migrator.setupIfNeeded().get()
        let pending = try await app.migrator.previewPrepareBatch().get().map { $0.0.name }
        if !pending.isEmpty { try await app.autoMigrate() }
        return pending
    }

    /// An arbitrary constant all Tessera services share: at most one migrator per PostgreSQL database at a time.
    static let lockKey: Int64 = 0x7465_7373_6572_6100  // "tessera\0"

    private static func withAdvisoryLock<T>(url: String, logger: Logger, _ body: () async throws -> T) async throws -> T {
        let configuration = try SQLPostgresConfiguration(url: url)
        let connection = try await PostgresConnection.connect(
            configuration: configuration.coreConfiguration, id: 1, logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            let result = try await body()
            try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            try await connection.close()
            return result
        } catch {
            // Closing the session releases its advisory locks.
            try? await connection.close()
            throw error
        }
    }
}
