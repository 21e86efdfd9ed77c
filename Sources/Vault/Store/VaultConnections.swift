import Crypto
import Foundation
import SQLKit
import ServiceSupport
import VaultProtocol

/// NATS credentials this vault issued to its peer (in its own account, publish only to its own MessageSpace). The
/// creds text is kept (sealed) so that a lost `connection.accept` or `connection.rotate` can be sent again unchanged.
struct IssuedCredentials: Codable, Sendable, Equatable {
    /// The NATS user public key (`U…`): what a revocation names.
    var user: String
    var expiresAt: Int64
    var credsFile: String
}

/// The secret half of a connection, sealed as one JSON value under the user's key. Keys are raw bytes (X25519
/// private keys of this vault, public keys of the peer). A rotation is two-phase: the new key and creds are
/// `pending…` until the peer shows it switched (its acknowledgement, or any envelope, opens under the new key);
/// the replaced keys stay usable for inbound envelopes until `…Until` (messages already on their way).
struct ConnectionSecrets: Codable, Sendable {
    enum Role: String, Codable, Sendable { case inviter, accepter }

    var role: Role
    var label: String
    /// The peer's guid (32 hex); nil while an invite waits for its accept.
    var peerGUID: String?
    var myKey: Data?
    var myPendingKey: Data?
    var myPreviousKey: Data?
    var myPreviousUntil: Int64?
    var peerKey: Data?
    var peerPreviousKey: Data?
    var peerPreviousUntil: Int64?
    /// The creds file the peer issued to this vault (publish to the peer's MessageSpace).
    var peerCredentials: String?
    var issued: IssuedCredentials?
    var pendingIssued: IssuedCredentials?
    /// Issued NATS users replaced by a rotation, revoked once the peer switched.
    var retired: [String] = []
    /// The newest profile version the peer broadcast (older or repeated broadcasts are not pushed again).
    var peerProfileVersion: Int64?

    /// Every NATS user this vault issued for the connection and has not revoked yet.
    var issuedUsers: [String] { [issued?.user, pendingIssued?.user].compactMap { $0 } + retired }

    /// After a revoke: only what `connection.list` shows.
    func wiped() -> ConnectionSecrets {
        ConnectionSecrets(role: role, label: label, peerGUID: peerGUID)
    }
}

/// One connection as the vault works with it.
struct ConnectionRecord: Sendable {
    let connectionID: String
    var status: ConnectionStatus
    var secrets: ConnectionSecrets
    let version: Int64
    let sendSeq: UInt64
    let recvSeq: UInt64
    let inviteExpiresAt: Date?
    let createdAt: Date
    var rotatedAt: Date?
}

/// The user's connections (`vt_connections`) and the revocations of the NATS users the vault issued
/// (`vt_revocations`). Every state change is one UPDATE conditional on the row's version, so two changes that
/// interleave (a command and a peer message of the same vault) never overwrite each other: the loser reloads.
struct VaultConnections: Sendable {
    enum Failure: Error, Equatable { case alreadyExists, notFound, conflict }

    let db: ServiceSQL
    let keyring: VaultKeyring

    private var user: String { keyring.user }
    private func rowID(_ connectionID: String) -> String { "\(user)|\(connectionID)" }

    func insert(
        _ connectionID: String, status: ConnectionStatus, secrets: ConnectionSecrets, inviteExpiresAt: Date?, now: Date
    ) async throws {
        let id = rowID(connectionID)
        let sealed = try seal(secrets, row: id)
        let user = self.user, time = now.timeIntervalSince1970, expires = inviteExpiresAt?.timeIntervalSince1970
        let inserted = try await db.run { sql in
            try await sql.raw("""
                INSERT INTO vt_connections (id, user_guid, connection_id, status, state_sealed, version, send_seq, recv_seq,
                  invite_expires_at, created_at, updated_at, rotated_at)
                VALUES (\(bind: id), \(bind: user), \(bind: connectionID), \(bind: status.rawValue), \(bind: sealed), 0, 0, 0,
                  \(bind: expires), \(bind: time), \(bind: time), NULL)
                ON CONFLICT (id) DO NOTHING RETURNING id
                """).first(decoding: IDRow.self)
        }
        guard inserted != nil else { throw Failure.alreadyExists }
    }

    func load(_ connectionID: String) async throws -> ConnectionRecord? {
        let id = rowID(connectionID)
        guard let row = try await db.run({ sql in
            try await sql.select().columns(ConnectionRow.columns).from("vt_connections").where("id", .equal, id)
                .first(decoding: ConnectionRow.self)
        }) else { return nil }
        return try record(row)
    }

    /// Every connection of the user, oldest first.
    func all() async throws -> [ConnectionRecord] {
        let user = self.user
        let rows = try await db.run { sql in
            try await sql.select().columns(ConnectionRow.columns).from("vt_connections").where("user_guid", .equal, user)
                .orderBy("created_at").all(decoding: ConnectionRow.self)
        }
        var records: [ConnectionRecord] = []
        for row in rows { records.append(try record(row)) }
        return records
    }

    /// Loads the connection, lets `change` edit it, and writes it back only if nobody changed it meanwhile (else
    /// reloads and tries again). `change` returns false to leave the row as it is.
    @discardableResult
    func update(_ connectionID: String, now: Date, _ change: (inout ConnectionRecord) throws -> Bool) async throws -> ConnectionRecord {
        try await apply(connectionID, now: now, change).record
    }

    /// `update`, returning nil when `change` left the row as it was.
    func changed(_ connectionID: String, now: Date, _ change: (inout ConnectionRecord) throws -> Bool) async throws -> ConnectionRecord? {
        let outcome = try await apply(connectionID, now: now, change)
        return outcome.changed ? outcome.record : nil
    }

    private func apply(
        _ connectionID: String, now: Date, _ change: (inout ConnectionRecord) throws -> Bool
    ) async throws -> (record: ConnectionRecord, changed: Bool) {
        for _ in 0..<8 {
            guard var record = try await load(connectionID) else { throw Failure.notFound }
            guard try change(&record) else { return (record, false) }
            if try await save(record, now: now) { return (record, true) }
        }
        throw Failure.conflict
    }

    private func save(_ record: ConnectionRecord, now: Date) async throws -> Bool {
        let id = rowID(record.connectionID)
        let sealed = try seal(record.secrets, row: id)
        let status = record.status.rawValue, version = record.version
        let rotated = record.rotatedAt?.timeIntervalSince1970
        let saved = try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_connections SET status = \(bind: status), state_sealed = \(bind: sealed), version = version + 1,
                  updated_at = \(bind: now.timeIntervalSince1970), rotated_at = \(bind: rotated)
                WHERE id = \(bind: id) AND version = \(bind: version) RETURNING id
                """).first(decoding: IDRow.self)
        }
        return saved != nil
    }

    /// The next sequence number towards the peer (one atomic increment, so no number is used twice).
    func nextSendSeq(_ connectionID: String) async throws -> UInt64 {
        let id = rowID(connectionID)
        guard let row = try await db.run({ sql in
            try await sql.raw("UPDATE vt_connections SET send_seq = send_seq + 1 WHERE id = \(bind: id) RETURNING send_seq")
                .first(decoding: SendSeqRow.self)
        }) else { throw Failure.notFound }
        return UInt64(max(0, row.send_seq))
    }

    /// Raises the replay floor a restarted vault starts from (never lowers it).
    func raiseRecvSeq(_ connectionID: String, to seq: UInt64) async throws {
        let id = rowID(connectionID), value = Int64(clamping: seq)
        try await db.run { sql in
            try await sql.raw("UPDATE vt_connections SET recv_seq = \(bind: value) WHERE id = \(bind: id) AND recv_seq < \(bind: value)").run()
        }
    }

    // MARK: revocations

    /// Records that `users` (NATS user keys this vault issued) are revoked as of `at`.
    func addRevocations(_ users: [String], at: Int64) async throws {
        let user = self.user
        for natsUser in users {
            let id = "\(user)|\(natsUser)"
            try await db.run { sql in
                try await sql.raw("""
                    INSERT INTO vt_revocations (id, user_guid, nats_user, revoked_at)
                    VALUES (\(bind: id), \(bind: user), \(bind: natsUser), \(bind: at)) ON CONFLICT (id) DO NOTHING
                    """).run()
            }
        }
    }

    /// Every revocation of the user: an account JWT push replaces the previous one, so it must list them all.
    func revocations() async throws -> [String: Int64] {
        let user = self.user
        let rows = try await db.run { sql in
            try await sql.select().columns("nats_user", "revoked_at").from("vt_revocations").where("user_guid", .equal, user)
                .all(decoding: RevocationRow.self)
        }
        var revocations: [String: Int64] = [:]
        for row in rows { revocations[row.nats_user] = row.revoked_at }
        return revocations
    }

    // MARK: sealing

    private func seal(_ secrets: ConnectionSecrets, row: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try keyring.seal(try encoder.encode(secrets), table: "vt_connections", row: row)
    }

    private func record(_ row: ConnectionRow) throws -> ConnectionRecord {
        let plaintext = try keyring.open(row.state_sealed, table: "vt_connections", row: row.id)
        guard let secrets = try? JSONDecoder().decode(ConnectionSecrets.self, from: plaintext),
            let status = ConnectionStatus(rawValue: row.status)
        else { throw WireError.server }
        return ConnectionRecord(
            connectionID: row.connection_id, status: status, secrets: secrets, version: row.version,
            sendSeq: UInt64(max(0, row.send_seq)), recvSeq: UInt64(max(0, row.recv_seq)),
            inviteExpiresAt: row.invite_expires_at.map(Date.init(timeIntervalSince1970:)),
            createdAt: Date(timeIntervalSince1970: row.created_at), rotatedAt: row.rotated_at.map(Date.init(timeIntervalSince1970:)))
    }
}

struct ConnectionRow: Decodable, Sendable {
    static let columns = [
        "id", "connection_id", "status", "state_sealed", "version", "send_seq", "recv_seq", "invite_expires_at", "created_at", "rotated_at",
    ]
    let id: String
    let connection_id: String
    let status: String
    let state_sealed: String
    let version: Int64
    let send_seq: Int64
    let recv_seq: Int64
    let invite_expires_at: Double?
    let created_at: Double
    let rotated_at: Double?
}

struct SendSeqRow: Decodable, Sendable { let send_seq: Int64 }
