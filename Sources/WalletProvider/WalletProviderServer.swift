import Argon2
import Fluent
import Foundation
import ServiceSupport
import Vapor

/// A running Wallet Provider: a Vapor application on `host:port` with its tables migrated and its signing key
/// loaded (or created) from the provider directory. `start` returns once the socket listens.
public final class WalletProviderServer: Sendable {
    private let app: Application
    /// The services the routes answer with (also what `@_spi(Benchmarks)` drives, ProviderBenchmarkSupport.swift).
    let services: ProviderServices
    /// The entity identifier and base of every endpoint (`publicBaseURL`, else `http://host:port`).
    public let baseURL: String
    public let port: Int
    /// The provider's federation key thumbprint (`kid`).
    public let keyID: String

    private init(app: Application, services: ProviderServices, baseURL: String, port: Int, keyID: String) {
        self.app = app
        self.services = services
        self.baseURL = baseURL
        self.port = port
        self.keyID = keyID
    }

    /// `tessera provider migrate`: the pending migrations of `database`, run once; their names.
    public static func migrate(database: ServiceDatabase) async throws -> [String] {
        try await ServiceApplication.migrate(name: "tessera-provider", database: database, migrations: ProviderMigrations.all)
    }

    /// - Parameter passwordParameters: Argon2id cost for account passwords (RFC 9106 §4's second recommended
    ///   option by default; tests pass a smaller one).
    public static func start(
        _ configuration: WalletProviderConfiguration, host: String = "127.0.0.1", port: Int = 8090,
        passwordParameters: Argon2Parameters = .rfc9106LowMemory, tls: ServiceTLS? = nil
    ) async throws(WalletProviderError) -> WalletProviderServer {
        let key = try ProviderKey.loadOrCreate(in: configuration.directory)
        let box = ServicesBox()
        let started: ServiceApplication.Started
        do {
            started = try await ServiceApplication.start(
                name: "tessera-provider", database: configuration.database, migrations: ProviderMigrations.all,
                host: host, port: port, tls: tls, migration: configuration.migration
            ) { app in Routes(box: box).register(on: app) }
        } catch {
            throw .startup("\(error)")
        }
        let app = started.app
        let url = configuration.publicBaseURL ?? ServiceApplication.baseURL(host: host, port: started.port, tls: tls != nil)
        let services = ProviderServices(
            configuration: configuration, key: key, baseURL: url, sql: ServiceSQL(app), passwordParameters: passwordParameters)
        box.set(services)
        return WalletProviderServer(app: app, services: services, baseURL: url, port: started.port, keyID: key.kid)
    }

    public func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}
