import Crypto
import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// The vault lifecycle as the ledger drives it (`/vault/start`, `/vault/stop`, `/vault/terminate`, status): it only
/// writes the desired state; the hosts' lease loops do the rest and report their progress in the same row.
public struct VaultDirectory: Sendable {
    /// A vault as the lifecycle endpoints show it.
    public struct Status: Sendable, Equatable {
        public var state: String
        public var desiredState: String
        public var progress: Int
        public var host: String?
        public var updatedAt: Date
        public var identityPublicKey: Data
    }

    let database: VaultDatabase
    /// Revokes the terminated vault's NATS identity (every user of its account); nil when there is no bus.
    let bus: VaultBus?
    let clock: any TesseraClock
    let random: any RandomSource

    public init(database: VaultDatabase, bus: VaultBus?, clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()) {
        self.database = database
        self.bus = bus
        self.clock = clock
        self.random = random
    }

    /// Creates the user's vault (identity key, data key) the first time; returns its identity public key.
    public func provision(userGUID: String, now: Date) async throws -> Data {
        let store = database.store
        if let existing = try await store.vault(userGUID) { return try Self.status(existing).identityPublicKey }
        let identity = try Curve25519.Signing.PrivateKey(rawRepresentation: random.bytes(32))
        var dataKey = random.bytes(32)
        defer { dataKey.resetBytes(in: 0..<dataKey.count) }
        try await store.insertVault(
            user: userGUID, identityPublicKey: identity.publicKey.rawRepresentation, identitySeed: identity.rawRepresentation,
            dataKey: dataKey, now: now)
        guard let row = try await store.vault(userGUID) else { throw WireError.server }
        return try Self.status(row).identityPublicKey
    }

    public func status(userGUID: String) async throws -> Status? {
        try await database.store.vault(userGUID).map(Self.status)
    }

    public func start(userGUID: String, now: Date) async throws -> Status? {
        try await database.store.setDesiredState(userGUID, "running", state: "provisioning", now: now).map(Self.status)
    }

    public func stop(userGUID: String, now: Date) async throws -> Status? {
        try await database.store.setDesiredState(userGUID, "stopped", state: "stopping", now: now).map(Self.status)
    }

    /// Deletes the vault's data and keys, and revokes every NATS user of its account (the app's, the vault's and
    /// any connection credentials), so nothing it issued works any more.
    public func terminate(userGUID: String, now: Date) async throws -> Status? {
        guard try await database.store.vault(userGUID) != nil else { return nil }
        if let bus {
            let jwt = try bus.identity.accountJWT(userGUID: userGUID, revocations: ["*": Int64(now.timeIntervalSince1970)], clock: AnyTesseraClock(clock))
            try await bus.publishAccount(jwt)
        }
        try await database.store.terminate(userGUID, now: now)
        return try await status(userGUID: userGUID)
    }

    static func status(_ row: VaultRow) throws -> Status {
        Status(
            state: row.state, desiredState: row.desired_state, progress: row.progress, host: row.lease_holder,
            updatedAt: Date(timeIntervalSince1970: row.updated_at), identityPublicKey: try Base64URL.decode(row.identity_public_key))
    }
}
