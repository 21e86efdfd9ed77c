import ArgumentParser
import Foundation
import ServiceSupport
import VerifierService

/// `tessera verifier serve`: the OpenID4VP verifier service (JSON API, wallet endpoints, web page).
struct VerifierServe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the OpenID4VP verifier service (JSON API and web page).",
        discussion: """
            Transactions are stored in SQLite ($TESSERA_HOME/verifier/transactions.sqlite) unless --database or \
            DATABASE_URL names another (sqlite://PATH or postgres://USER:PASSWORD@HOST:PORT/DB). The client \
            identity (x509_hash) is the key and certificate in $TESSERA_HOME/verifier, created on first use; wallets \
            trust its root.pem. Without --trust, the demo issuers of `tessera wallet add-mdl` / `add-pid` are trusted.
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "Database URL (default: $DATABASE_URL, else SQLite under $TESSERA_HOME/verifier).")
    var database: String?

    @Option(help: "Trusted issuer certificates: a PEM file or a directory of .pem files (IACA roots, SD-JWT VC issuer roots).")
    var trust: String?

    @Option(name: .customLong("base-url"), help: "The URL wallets and browsers reach the service at (default: http(s)://HOST:PORT).")
    var baseURL: String?

    @Option(name: .customLong("web-root"), help: "Serve the web page from this directory instead of the built-in copy.")
    var webRoot: String?

    @Option(help: "Seconds a transaction waits for its response.")
    var lifetime: Double = 300

    @OptionGroup var https: ServeTLSOptions
    @OptionGroup var migration: MigrationOptions

    func run() async throws {
        EventLoopExecutor.adopt()
        ServiceLogging.bootstrapJSON()
        var configuration = try await VerifierSetup.configuration(
            trust: trust, database: database, baseURL: baseURL, webRoot: webRoot, lifetime: lifetime, announce: true)
        configuration.migration = migration.policy(for: configuration.database)
        let server: VerifierServer
        do {
            server = try await VerifierServer.start(configuration, host: host, port: port, tls: https.tls)
        } catch {
            throw UserFacingError(error.description)
        }
        FileHandle.standardOutput.write(Data("client_id \(server.clientId)\n".utf8))
        // The socket itself, which differs from the base URL behind a load balancer (--base-url).
        FileHandle.standardOutput.write(Data("bound \(https.tls == nil ? "http" : "https")://\(host):\(server.port)\n".utf8))
        // Unbuffered when read by another program: scripts wait for this line.
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))
        await ServiceTermination.run { await server.shutdown() }
    }
}
