import ArgumentParser
import Foundation
import Ledger
import ServiceSupport
import Vault
import VerifierService
import WalletProvider

// `tessera SERVICE migrate` (issue 29): the database's pending migrations, once, under PostgreSQL's advisory lock so
// that two runs take turns. Run it before starting instances with --no-auto-migrate (the PostgreSQL default).

/// `tessera verifier migrate`.
struct VerifierMigrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Run the verifier database's pending migrations once.")
    @Option(help: "Database URL (default: $DATABASE_URL, else SQLite under $TESSERA_HOME/verifier).") var database: String?

    func run() async throws {
        let directory = TesseraHome.url.appendingPathComponent("verifier")
        let db = try MigrateTarget.database(VerifierSetup.databaseURL(database, in: directory), directory: directory)
        MigrateReport.print(try await MigrateTarget.run { try await VerifierServer.migrate(database: db) }, service: "verifier")
    }
}

/// `tessera provider migrate`.
struct ProviderMigrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Run the Wallet Provider database's pending migrations once.")
    @Option(help: "Database URL (default: $DATABASE_URL, else SQLite under $TESSERA_HOME/provider).") var database: String?
    @Option(help: "The provider's directory (default: $TESSERA_HOME/provider).") var directory: String?

    func run() async throws {
        let directory = directory.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("provider")
        let db = try ProviderSetup.database(database, directory: directory)
        MigrateReport.print(try await MigrateTarget.run { try await WalletProviderServer.migrate(database: db) }, service: "provider")
    }
}

/// `tessera ledger migrate`.
struct LedgerMigrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Run the ledger database's pending migrations once.")
    @OptionGroup var location: LedgerCommand.Location

    func run() async throws {
        let configuration = try location.configuration()
        MigrateReport.print(try await MigrateTarget.run { try await LedgerServer.migrate(configuration) }, service: "ledger")
    }
}

/// `tessera vault migrate`: the vault hosts' database.
struct VaultMigrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Run the vault hosts' database's pending migrations once.")
    @Option(help: "Database URL (default: $DATABASE_URL, else vault.sqlite in the operator directory).") var database: String?
    @Option(name: .customLong("operator-dir"), help: "The ledger's directory (default: $TESSERA_HOME/ledger).")
    var operatorDirectory: String?

    func run() async throws {
        let directory = operatorDirectory.map { URL(fileURLWithPath: $0) } ?? TesseraHome.url.appendingPathComponent("ledger")
        let setup = try VaultHostSetup(operatorDirectory: directory, database: database)
        MigrateReport.print(try await MigrateTarget.run { try await VaultDatabase.migrate(setup.configuration) }, service: "vault")
    }
}

enum MigrateTarget {
    /// A database URL, its SQLite directory created (0700) when it is a file under `directory`.
    static func database(_ url: String, directory: URL) throws -> ServiceDatabase {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try ServiceDatabase(url: url)
        } catch {
            throw UserFacingError("--database: \(error)")
        }
    }

    static func run(_ body: () async throws -> [String]) async throws -> [String] {
        do {
            return try await body()
        } catch {
            throw UserFacingError("migrating failed: \(String(reflecting: error))")
        }
    }
}
