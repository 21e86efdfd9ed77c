import Foundation
import ServiceSupport
import TesseraCore

/// Where a vault host keeps its master key and which database it shares with the other hosts.
public struct VaultHostConfiguration: Sendable {
    public static let masterKeyFileName = "vault-master.key"

    /// Holds `vault-master.key` (shared by every host of a deployment) and the SQLite file by default.
    public var directory: URL
    public var database: ServiceDatabase
    /// Whether start-up runs pending migrations (`.automatic`) or refuses to start while any is pending
    /// (`.verifyOnly`, after `migrate`: what several instances on one PostgreSQL do).
    public var migration: MigrationPolicy = .automatic
    public var clock: any TesseraClock
    public var random: any RandomSource

    public init(
        directory: URL, database: ServiceDatabase, clock: any TesseraClock = SystemClock(),
        random: any RandomSource = SystemRandomSource()
    ) {
        self.directory = directory
        self.database = database
        self.clock = clock
        self.random = random
    }

    public func masterKey() throws(ServiceStartupError) -> ServiceMasterKey {
        try ServiceMasterKey.loadOrCreate(file: directory.appendingPathComponent(Self.masterKeyFileName), random: random)
    }
}
