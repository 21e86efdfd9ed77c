import Foundation
import ServiceSupport
import TesseraCore

/// What a ledger runs with. Every cost and lifetime has the value the issue gives or the one documented here.
public struct LedgerConfiguration: Sendable {
    public var database: ServiceDatabase
    /// Whether start-up runs pending migrations (`.automatic`) or refuses to start while any is pending
    /// (`.verifyOnly`, after `migrate`: what several instances on one PostgreSQL do).
    public var migration: MigrationPolicy = .automatic
    /// Holds `ledger-master.key` (created 0600 on first start).
    public var directory: URL
    /// The Argon2id cost the device runs (the issue: m = 64 MiB, t = 3, p = 4).
    public var kdfMemoryKiB: UInt32 = 65_536
    public var kdfIterations: UInt32 = 3
    public var kdfParallelism: UInt32 = 4
    /// Transaction keys handed out at enrollment, the low-water mark and the top-up at authentication.
    public var initialTransactionKeys = 20
    public var replenishThreshold = 10
    public var replenishCount = 10
    /// Failed password attempts before a lockout, and its length (15 minutes: long enough to make online guessing
    /// of a 64-MiB-Argon2 password pointless, short enough not to be a lasting denial of service).
    public var maxFailures = 5
    public var lockout: TimeInterval = 15 * 60
    public var actionTokenLifetime: TimeInterval = 5 * 60
    public var enrollmentLifetime: TimeInterval = 30 * 60
    public var invitationLifetime: TimeInterval = 7 * 86_400
    /// Requests per minute to the enrollment and authentication endpoints, per client address and per user.
    public var perAddressPerMinute = 120
    public var perUserPerMinute = 30
    /// Mints the member's NATS identity at finalize (none: the answer carries no `nats`).
    public var nats: (any LedgerNATSProvisioner)?
    /// The vault hosts: provisions the member's vault at finalize and serves `/vault/*` (none: finalize carries no
    /// `vault` and the lifecycle endpoints answer 503).
    public var vault: (any LedgerVaultLifecycle)?
    public var clock: any TesseraClock
    public var random: any RandomSource

    public init(
        database: ServiceDatabase, directory: URL, nats: (any LedgerNATSProvisioner)? = nil,
        vault: (any LedgerVaultLifecycle)? = nil, clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()
    ) {
        self.database = database
        self.directory = directory
        self.nats = nats
        self.vault = vault
        self.clock = clock
        self.random = random
    }
}

/// Creates the NATS account and bootstrap user of a member at finalize; the returned object is the `nats` member of
/// the answer (server URLs, the user's creds).
public protocol LedgerNATSProvisioner: Sendable {
    func provision(userGUID: String, now: Date) async throws -> [String: String]
    /// nil when the bus answers, else why not (the ledger's `/ready`).
    func readiness() async -> String?
}

extension LedgerNATSProvisioner {
    /// A bus that is always there (the demo's in-process one).
    public func readiness() async -> String? { nil }
}
