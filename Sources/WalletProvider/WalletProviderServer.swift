import Argon2
import Fluent
import Foundation
import ServiceSupport
import Vapor

/// A running Wallet Provider: a Vapor application on `host:port` with its tables migrated and its signing key
/// loaded (or created) from the provider directory. `start` returns once the socket listens.
public final class WalletProviderServer: Sendable {
    private let app: Application
    /// The entity identifier and base of every endpoint (`publicBaseURL`, else `http://host:port`).
    public let baseURL: String
    public let port: Int
    /// The provider's federation key thumbprint (`kid`).
    public let keyID: String

    private init(app: Application, baseURL: String, port: Int, keyID: String) {
        self.app = app
        self.baseURL = baseURL
        self.port = port
        self.keyID = keyID
    }

    /// - Parameter passwordParameters: Argon2id cost for account passwords (RFC 9106 §4's second recommended
    ///   option by default; tests pass a smaller one).
    public static func start(
        _ configuration: WalletProviderConfiguration, host: String = "127.0.0.1", port: Int = 8090,
        passwordParameters: Argon2Parameters = .rfc9106LowMemory
    ) async throws(WalletProviderError) -> WalletProviderServer {
        let key = try ProviderKey.loadOrCreate(in: configuration.directory)
        let app: Application
        do {
            app = try await Application.make(Environment(name: "production", arguments: ["tessera-provider"]))
        } catch {
            throw .startup("cannot create the application: \(error)")
        }
        app.logger.logLevel = .warning
        app.middleware = Middlewares()
        app.middleware.use(WireErrorMiddleware())
        app.routes.defaultMaxBodySize = "64kb"
        let box = ServicesBox()
        do {
            try configuration.database.configure(app)
            app.migrations.add(CreateProviderSchema())
            try await app.autoMigrate()
            try await configuration.database.tune(app)
            Routes(box: box).register(on: app)
            app.http.server.configuration.hostname = host
            app.http.server.configuration.port = port
            try await app.asyncBoot()
            try await app.server.start(address: .hostname(host, port: port))
        } catch {
            try? await app.asyncShutdown()
            throw .startup("\(error)")
        }
        let boundPort = app.http.server.shared.localAddress?.port ?? port
        let url = configuration.publicBaseURL ?? "http://\(host.contains(":") ? "[\(host)]" : host):\(boundPort)"
        box.set(ProviderServices(
            configuration: configuration, key: key, baseURL: url, database: app.db, passwordParameters: passwordParameters))
        return WalletProviderServer(app: app, baseURL: url, port: boundPort, keyID: key.kid)
    }

    public func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}
