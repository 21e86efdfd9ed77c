import Foundation
import ServiceSupport
import TesseraCore

/// Everything the verifier service needs, injected (clock and randomness included, so tests are deterministic).
public struct VerifierServiceConfiguration: Sendable {
    /// Where transactions are kept: an SQLite file by default, PostgreSQL (`postgres://…`, e.g. from
    /// `DATABASE_URL`) to run several instances behind one base URL. The name stays so callers need not import
    /// ServiceSupport.
    public typealias Database = ServiceDatabase

    public var identity: VerifierIdentity
    public var trust: IssuerTrust
    public var database: Database
    /// Whether start-up runs pending migrations (`.automatic`) or refuses to start while any is pending
    /// (`.verifyOnly`, after `migrate`: what several instances on one PostgreSQL do).
    public var migration: MigrationPolicy = .automatic
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
