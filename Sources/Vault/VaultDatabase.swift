import Fluent
import Foundation
import ServiceSupport
import Vapor

/// The database the vault hosts share (and the ledger's lifecycle calls reach): migrated and tuned like every
/// Tessera service's (SQLite WAL + synchronous=NORMAL by default, PostgreSQL for several hosts).
public final class VaultDatabase: Sendable {
    let app: Application
    let master: ServiceMasterKey

    private init(app: Application, master: ServiceMasterKey) {
        self.app = app
        self.master = master
    }

    public static var migrations: [any Migration] { [CreateVaultSchema(), CreateVaultConnectionSchema(), AddVaultMessageListIndex()] }

    public static func open(_ configuration: VaultHostConfiguration) async throws -> VaultDatabase {
        let master = try configuration.masterKey()
        let app = try await ServiceApplication.prepare(
            name: "tessera-vault", database: configuration.database, migrations: migrations, migration: configuration.migration)
        return VaultDatabase(app: app, master: master)
    }

    /// `tessera vault migrate`: the pending migrations of the hosts' database, run once; their names.
    public static func migrate(_ configuration: VaultHostConfiguration) async throws -> [String] {
        try await ServiceApplication.migrate(name: "tessera-vault", database: configuration.database, migrations: migrations)
    }

    var sql: ServiceSQL { ServiceSQL(app) }
    var store: VaultStore { VaultStore(db: sql, master: master) }

    public func shutdown() async {
        try? await app.asyncShutdown()
    }
}
