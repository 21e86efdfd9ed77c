import Crypto
import Foundation
import ServiceSupport
import TesseraCore
import VaultProtocol

/// What a command may use, and nothing more: the database (inside the command's transaction for a `write`), the
/// user's keyring, the time it is handled at, randomness, the session it came in under, the NATS users the vault
/// signs, and narrow interfaces to the vault's peers and sessions. A command never holds the runtime
/// (ARCHITECTURE.md decision 11).
struct CommandContext: Sendable {
    let userGUID: String
    /// The guid of the vault's subjects (`OwnerSpace.{guid}`, `MessageSpace.{guid}`).
    let guid: String
    /// The command's transaction (`write`), or the host's database.
    var db: ServiceSQL
    let keyring: VaultKeyring
    /// The running vault's record cache, for `read` commands only (a write must see its own transaction's rows).
    var cache: VaultRecordCache?
    /// When the command is handled: one reading of the clock for everything it records.
    let now: Date
    /// Keys, nonces and ids (`VaultID.make`).
    let random: any RandomSource
    let policy: VaultPolicy
    /// The session the command came in under; its answer goes out under it.
    let session: SessionGate.Keys
    /// The NATS users this vault signs with its user's account key, and the bus.
    let nats: VaultNATSIdentity
    let appCredentials: AppCredentials
    let peers: any PeerChannel
    let sessions: any AppSessions

    var timestamp: Int64 { Int64(now.timeIntervalSince1970) }

    func records(_ collection: VaultCollection) -> VaultRecords {
        VaultRecords(db: db, keyring: keyring, collection: collection.rawValue, cache: cache)
    }

    var connections: VaultConnections { VaultConnections(db: db, keyring: keyring) }
    var messages: VaultMessages { VaultMessages(db: db, keyring: keyring) }
    var revocations: NATSRevocations { NATSRevocations(connections: connections, nats: nats) }

    /// A fresh X25519 key (connection keys, session keys).
    func newAgreementKey() throws -> Curve25519.KeyAgreement.PrivateKey {
        try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32))
    }
}

/// What commands may do with the vault's peer vaults (`PeerLinks`): send under a connection, wait for an
/// acknowledgement, forget a revoked peer.
protocol PeerChannel: Sendable {
    /// Seals `body` under the connection's current key with its next seq and publishes it to the peer; with
    /// `expectAck`, the acknowledgement is looked for from before the publish. The seq it went out with.
    func send<Body: PeerMessageBody>(
        _ body: Body, on record: ConnectionRecord, senderKey: Data?, expectAck: Bool
    ) async throws(PeerSendFailure) -> UInt64
    /// True when the peer acknowledged `seq` within `ConnectionPolicy.ackTimeout`.
    func awaitAck(_ connectionID: String, seq: UInt64) async -> Bool
    /// Closes the link to a revoked peer and wipes the connection's keys and credentials.
    func forget(_ connectionID: String, now: Date) async
}

extension PeerChannel {
    func send<Body: PeerMessageBody>(_ body: Body, on record: ConnectionRecord) async throws(PeerSendFailure) -> UInt64 {
        try await send(body, on: record, senderKey: nil, expectAck: false)
    }
}

/// What `session.rotate` may do with the app's sessions (`SessionGate`, owned by the runtime).
protocol AppSessions: Sendable {
    /// Makes `session` the current one; `oldID` keeps working for the grace period from `at`.
    func adopt(_ session: LiveSession, superseding oldID: String, at: Date) async
}

/// The record collections of a vault.
enum VaultCollection: String {
    case secret, profile, credential
}
