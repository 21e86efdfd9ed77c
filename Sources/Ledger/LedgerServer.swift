import Fluent
import Foundation
import Synchronization
import ServiceSupport
import Vapor

/// A running ledger: a Vapor application on `host:port`, its tables migrated and its master key loaded (or created).
public final class LedgerServer: Sendable {
    private let app: Application
    private let services: LedgerServices
    public let baseURL: String
    public let port: Int

    private init(app: Application, services: LedgerServices, baseURL: String, port: Int) {
        self.app = app
        self.services = services
        self.baseURL = baseURL
        self.port = port
    }

    public static func start(_ configuration: LedgerConfiguration, host: String = "127.0.0.1", port: Int = 8095) async throws -> LedgerServer {
        let master = try MasterKey.loadOrCreate(in: configuration.directory, random: configuration.random)
        let box = LedgerBox()
        let started = try await ServiceApplication.start(
            name: "tessera-ledger", database: configuration.database, migrations: LedgerMigrations.all, host: host, port: port,
            migration: configuration.migration,
            readiness: configuration.nats.map { nats in [ReadinessCheck(name: "nats") { await nats.readiness() }] } ?? []
        ) { app in
            let services = LedgerServices(configuration: configuration, master: master, sql: ServiceSQL(app))
            box.services.withLock { $0 = services }
            LedgerRoutes(services: services).register(on: app)
        }
        guard let services = box.services.withLock({ $0 }) else { throw LedgerError.startup("routes were not registered") }
        return LedgerServer(
            app: started.app, services: services, baseURL: ServiceApplication.baseURL(host: host, port: started.port), port: started.port)
    }

    /// `tessera ledger migrate`: the pending migrations of `configuration.database`, run once; their names.
    public static func migrate(_ configuration: LedgerConfiguration) async throws -> [String] {
        try await ServiceApplication.migrate(name: "tessera-ledger", database: configuration.database, migrations: LedgerMigrations.all)
    }

    /// A new single-use invitation code.
    public func invite() async throws -> String { try await services.invite() }

    /// An invitation code written straight to the database (`tessera ledger invite`), no server needed.
    public static func invite(_ configuration: LedgerConfiguration) async throws -> String {
        let master = try MasterKey.loadOrCreate(in: configuration.directory, random: configuration.random)
        let app = try await ServiceApplication.prepare(name: "tessera-ledger", database: configuration.database, migrations: LedgerMigrations.all)
        do {
            let code = try await LedgerServices(configuration: configuration, master: master, sql: ServiceSQL(app)).invite()
            try await app.asyncShutdown()
            return code
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
    }

    public func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}

/// Carries the services out of the route-registration closure.
private final class LedgerBox: Sendable {
    let services = Mutex<LedgerServices?>(nil)
}
