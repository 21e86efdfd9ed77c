import Fluent
import Foundation
import ServiceSupport
import Synchronization
import Vapor

/// A running verifier service: a Vapor application on `host:port` with its transaction store migrated, started
/// as every Tessera service is (`ServiceApplication`: SQLite in WAL mode with `synchronous=NORMAL` or PostgreSQL,
/// and every error — Vapor's own 404, 405, 413 included — answered as `{"error", "error_description"}`).
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

    /// The verifier's schema, in order.
    static let migrations: [any Migration] = [CreateVerifierTransactions(), IndexVerifierTransactionExpiry()]

    /// `tessera verifier migrate`: the pending migrations of `database`, run once; their names.
    public static func migrate(database: ServiceDatabase) async throws -> [String] {
        try await ServiceApplication.migrate(name: "tessera-verifier", database: database, migrations: migrations)
    }

    /// - Parameter tls: serve HTTPS with this certificate and key (plain HTTP when nil).
    public static func start(
        _ configuration: VerifierServiceConfiguration, host: String = "127.0.0.1", port: Int = 8080, tls: ServiceTLS? = nil
    ) async throws(VerifierServiceError) -> VerifierServer {
        let webRoot = try webRootPath(configuration.webRoot)
        // The base URL is known only once the socket is bound when no public one is configured.
        let baseURL = Mutex<String>(configuration.publicBaseURL ?? "")
        let verifiers = ResponseVerifiers(configuration.trust)
        let purgeSchedule = PurgeSchedule()
        let started: ServiceApplication.Started
        do {
            started = try await ServiceApplication.start(
                name: "tessera-verifier", database: configuration.database, migrations: migrations,
                host: host, port: port, tls: tls, migration: configuration.migration
            ) { app in
                app.middleware.use(WebRootMiddleware(root: webRoot, defaultFile: "index.html"))
                Routes(service: { request in
                    TransactionService(
                        configuration: configuration, verifiers: verifiers, purgeSchedule: purgeSchedule,
                        store: TransactionStore(db: ServiceSQL(request.application)),
                        baseURL: baseURL.withLock { $0 })
                }).register(on: app)
                MethodNotAllowed.register(on: app)
            }
        } catch let error as ServiceDatabase.InvalidURL {
            throw .configuration(error.description)
        } catch let error as ServiceTLSError {
            throw .configuration(error.description)
        } catch {
            throw .startup("\(error)")
        }
        let url = baseURL.withLock { value in
            if value.isEmpty { value = ServiceApplication.baseURL(host: host, port: started.port, tls: tls != nil) }
            return value
        }
        return VerifierServer(app: started.app, baseURL: url, port: started.port, clientId: configuration.identity.clientId)
    }

    public func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    private static func webRootPath(_ override: URL?) throws(VerifierServiceError) -> String {
        let url = override ?? Bundle.module.url(forResource: "Public", withExtension: nil)
        guard let url, FileManager.default.fileExists(atPath: url.appendingPathComponent("index.html").path) else {
            throw .configuration("the web root has no index.html")
        }
        return url.path.hasSuffix("/") ? url.path : url.path + "/"
    }
}
