import Fluent
import Foundation
import Vapor

/// The start-up every Tessera service shares: a production Vapor application with only the wire-error middleware,
/// its database registered, migrated and tuned, its routes, listening on `host:port` (0 picks a free port).
public enum ServiceApplication {
    public struct Started: Sendable {
        public let app: Application
        /// The port the socket is bound to.
        public let port: Int
    }

    /// Every service also answers `GET /health` and `GET /ready` (`ServiceProbes`): ready when its database answers
    /// and every check in `readiness` holds.
    /// - Parameter tls: HTTPS with this certificate and key; plain HTTP when nil.
    public static func start(
        name: String, database: ServiceDatabase, migrations: [any Migration], host: String, port: Int,
        maxBodySize: ByteCount = "64kb", tls: ServiceTLS? = nil, migration: MigrationPolicy = .automatic,
        readiness: [ReadinessCheck] = [], routes: (Application) throws -> Void
    ) async throws -> Started {
        let tlsConfiguration = try tls?.serverConfiguration()
        let app = try await prepare(name: name, database: database, migrations: migrations, migration: migration)
        app.routes.defaultMaxBodySize = maxBodySize
        return try await serve(app, host: host, port: port) {
            ServiceProbes.register(on: app, checks: [.database(app)] + readiness)
            try routes(app)
            app.http.server.configuration.tlsConfiguration = tlsConfiguration
        }
    }

    /// An admin listener for a process without an HTTP API of its own (a vault host): only `/health`, `/ready` (the
    /// given checks) and `/metrics`, on `host:port` (loopback by default in the CLI).
    public static func startAdmin(name: String, host: String, port: Int, readiness: [ReadinessCheck]) async throws -> Started {
        let app = try await makeApplication(name: name)
        return try await serve(app, host: host, port: port) { ServiceProbes.register(on: app, checks: readiness) }
    }

    /// The application with its database registered, migrated (as `migration` says) and tuned, not serving: what a
    /// command that only touches the database (`tessera ledger invite`) needs. Shut it down with `asyncShutdown()`.
    public static func prepare(
        name: String, database: ServiceDatabase, migrations: [any Migration], migration: MigrationPolicy = .automatic
    ) async throws -> Application {
        try await open(name: name, database: database, migrations: migrations, migration: migration).app
    }

    /// `tessera migrate`: every pending migration of the service's database, once (under PostgreSQL's advisory lock
    /// when two run at once). Returns the names of the migrations it ran.
    public static func migrate(name: String, database: ServiceDatabase, migrations: [any Migration]) async throws -> [String] {
        let (app, ran) = try await open(name: name, database: database, migrations: migrations, migration: .automatic)
        try await app.asyncShutdown()
        return ran
    }

    private static func open(
        name: String, database: ServiceDatabase, migrations: [any Migration], migration: MigrationPolicy
    ) async throws -> (app: Application, migrated: [String]) {
        let app = try await makeApplication(name: name)
        do {
            try database.configure(app)
            for migration in migrations { app.migrations.add(migration) }
            let ran = try await ServiceMigrations.apply(
                migration, migrations: migrations, app: app, database: database, service: serviceName(name))
            try await database.tune(app)
            return (app, ran)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
    }

    /// A production application with only the request log and the wire-error middleware; metrics installed.
    private static func makeApplication(name: String) async throws -> Application {
        ServiceMetrics.bootstrap()
        let app = try await Application.make(Environment(name: "production", arguments: [name]))
        app.logger.logLevel = .warning
        app.middleware = Middlewares()
        // Outermost, so it logs the status the error middleware answered with.
        app.middleware.use(RequestLogMiddleware(service: serviceName(name)))
        app.middleware.use(WireErrorMiddleware())
        return app
    }

    /// `configure`, then listening on `host:port`; the application is shut down if either fails.
    private static func serve(_ app: Application, host: String, port: Int, configure: () throws -> Void) async throws -> Started {
        do {
            try configure()
            app.http.server.configuration.hostname = host
            app.http.server.configuration.port = port
            try await app.asyncBoot()
            try await app.server.start(address: .hostname(host, port: port))
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        return Started(app: app, port: app.http.server.shared.localAddress?.port ?? port)
    }

    /// "tessera-ledger" → "ledger", as the CLI names the service.
    private static func serviceName(_ name: String) -> String {
        name.hasPrefix("tessera-") ? String(name.dropFirst("tessera-".count)) : name
    }

    /// `http://host:port` (`https` with TLS), with IPv6 literals bracketed.
    public static func baseURL(host: String, port: Int, tls: Bool = false) -> String {
        "\(tls ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
