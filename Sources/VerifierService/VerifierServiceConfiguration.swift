import Foundation
import TesseraCore

/// Everything the verifier service needs, injected (clock and randomness included, so tests are deterministic).
public struct VerifierServiceConfiguration: Sendable {
    public enum Database: Sendable, Equatable {
        /// An SQLite file (the embedded default), or an in-memory database.
        case sqlite(path: String)
        case sqliteInMemory
        /// PostgreSQL, from a `postgres://user:password@host:port/database` URL.
        case postgres(url: String)

        /// `sqlite://PATH`, `sqlite::memory:`, `postgres://…` / `postgresql://…`, or a bare file path.
        public init(url: String) throws(VerifierServiceError) {
            if url == "sqlite::memory:" {
                self = .sqliteInMemory
            } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
                self = .postgres(url: url)
            } else if url.hasPrefix("sqlite://") {
                let path = String(url.dropFirst("sqlite://".count))
                guard !path.isEmpty else { throw .configuration("sqlite:// needs a file path") }
                self = .sqlite(path: path)
            } else if url.contains("://") {
                throw .configuration("unsupported database URL scheme (use sqlite:// or postgres://)")
            } else {
                self = .sqlite(path: url)
            }
        }
    }

    public var identity: VerifierIdentity
    public var trust: IssuerTrust
    public var database: Database
    /// The address wallets and browsers reach the service at (`http://127.0.0.1:8080`); nil = the bound address.
    public var publicBaseURL: String?
    /// How long a transaction accepts a response (§13.3: nonces are short-lived).
    public var transactionLifetime: TimeInterval
    /// Where the web page's files are; nil = the copy built into the module.
    public var webRoot: URL?
    public var clock: any TesseraClock
    public var random: any RandomSource

    public init(
        identity: VerifierIdentity, trust: IssuerTrust, database: Database, publicBaseURL: String? = nil,
        transactionLifetime: TimeInterval = 300, webRoot: URL? = nil, clock: any TesseraClock = SystemClock(),
        random: any RandomSource = SystemRandomSource()
    ) {
        self.identity = identity
        self.trust = trust
        self.database = database
        self.publicBaseURL = publicBaseURL
        self.transactionLifetime = transactionLifetime
        self.webRoot = webRoot
        self.clock = clock
        self.random = random
    }
}
