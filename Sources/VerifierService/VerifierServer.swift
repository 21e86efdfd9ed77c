import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Synchronization
import Vapor

/// A running verifier service: a Vapor application on `host:port` with its transaction store migrated.
/// `start` returns once the socket listens; `shutdown` stops it and closes the database.
public final class VerifierServer: Sendable {
    private let app: Application
    /// Where the service is reached (`configuration.publicBaseURL`, else `http://host:port`).
    public let baseURL: String
    /// The port actually bound (useful with port 0).
    public let port: Int
    public let clientId: String

    private init(app: Application, baseURL: String, port: Int, clientId: String) {
        self.app = app
        self.baseURL = baseURL
        self.port = port
        self.clientId = clientId
    }

    public static func start(
        _ configuration: VerifierServiceConfiguration, host: String = "127.0.0.1", port: Int = 8080
    ) async throws(VerifierServiceError) -> VerifierServer {
        let app: Application
        do {
            app = try await Application.make(Environment(name: "production", arguments: ["tessera-verifier"]))
        } catch {
            throw .startup("cannot create the application: \(error)")
        }
        app.logger.logLevel = .warning
        let baseURL = Mutex<String>(configuration.publicBaseURL ?? "")
        do {
            try configureDatabase(app, configuration.database)
            app.migrations.add(CreateVerifierTransactions())
            try await app.autoMigrate()
            let webRoot = try webRootPath(configuration.webRoot)
            app.middleware.use(FileMiddleware(publicDirectory: webRoot, defaultFile: "index.html"))
            let database = app.db
            Routes(service: {
                TransactionService(
                    configuration: configuration, store: TransactionStore(database: database),
                    baseURL: baseURL.withLock { $0 })
            }).register(on: app)
            app.http.server.configuration.hostname = host
            app.http.server.configuration.port = port
            try await app.asyncBoot()
            try await app.server.start(address: .hostname(host, port: port))
        } catch let error as VerifierServiceError {
            try? await app.asyncShutdown()
            throw error
        } catch {
            try? await app.asyncShutdown()
            throw .startup("\(error)")
        }
        let boundPort = app.http.server.shared.localAddress?.port ?? port
        let url = baseURL.withLock { value in
            if value.isEmpty { value = "http://\(host.contains(":") ? "[\(host)]" : host):\(boundPort)" }
            return value
        }
        return VerifierServer(app: app, baseURL: url, port: boundPort, clientId: configuration.identity.clientId)
    }

    public func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    private static func configureDatabase(_ app: Application, _ database: VerifierServiceConfiguration.Database) throws {
        switch database {
        case .sqlite(let path):
            app.databases.use(.sqlite(.file(path)), as: .sqlite)
        case .sqliteInMemory:
            app.databases.use(.sqlite(.memory), as: .sqlite)
        case .postgres(let url):
            do {
                app.databases.use(.postgres(configuration: try SQLPostgresConfiguration(url: url)), as: .psql)
            } catch {
                throw VerifierServiceError.configuration("the PostgreSQL URL is not valid")
            }
        }
    }

    private static func webRootPath(_ override: URL?) throws(VerifierServiceError) -> String {
        let url = override ?? Bundle.module.url(forResource: "Public", withExtension: nil)
        guard let url, FileManager.default.fileExists(atPath: url.appendingPathComponent("index.html").path) else {
            throw .configuration("the web root has no index.html")
        }
        return url.path.hasSuffix("/") ? url.path : url.path + "/"
    }
}
