import Crypto
import Foundation
import SQLKit
import ServiceSupport

/// The app sessions of a user (their keys sealed under the user's key, so another host can take the vault over
/// without the app noticing) and the commands already handled (so a retried command gets the same answer and
/// changes nothing twice).
struct VaultSessionStore: Sendable {
    struct Session: Sendable {
        let id: String
        let key: SymmetricKey
        let expiresAt: Date
        /// The app's sequence numbers reserved for receiving (`SeqReservation`): at or above every seq a runtime
        /// answered under this session, so a new host starts its window here (column `last_seq`).
        let receiveReserved: UInt64
        let sendReserved: UInt64
        let supersededAt: Date?
    }

    let db: ServiceSQL
    let keyring: VaultKeyring

    private var user: String { keyring.user }

    func insert(id: String, key: SymmetricKey, createdAt: Date, expiresAt: Date) async throws(WireError) {
        let sealed = try keyring.seal(key.withUnsafeBytes { Data($0) }, table: "vt_sessions", row: id)
        let user = self.user
        try await db.run { sql in
            try await sql.insert(into: "vt_sessions").columns("id", "user_guid", "key_sealed", "created_at", "expires_at", "last_seq", "send_reserved", "superseded_at")
                .values(SQLBind(id), SQLBind(user), SQLBind(sealed), SQLBind(createdAt.timeIntervalSince1970),
                    SQLBind(expiresAt.timeIntervalSince1970), SQLBind(Int64(0)), SQLBind(Int64(0)), SQLLiteral.null).run()
        }
    }

    func load(id: String) async throws(WireError) -> Session? {
        let user = self.user
        guard let row = try await db.run({ sql in
            try await sql.select().columns("id", "key_sealed", "expires_at", "last_seq", "send_reserved", "superseded_at").from("vt_sessions")
                .where("id", .equal, id).where("user_guid", .equal, user).first(decoding: SessionRow.self)
        }) else { return nil }
        let key = try keyring.open(row.key_sealed, table: "vt_sessions", row: row.id)
        return Session(
            id: row.id, key: SymmetricKey(data: key), expiresAt: Date(timeIntervalSince1970: row.expires_at),
            receiveReserved: UInt64(max(0, row.last_seq)), sendReserved: UInt64(max(0, row.send_reserved)), supersededAt: row.superseded_at.map(Date.init(timeIntervalSince1970:)))
    }

    /// Raises the session's receive floor to `upTo` (never lowers it: one monotonic statement, so two runtimes
    /// writing at once, or a late write, cannot take it back).
    func reserveReceive(id: String, upTo: UInt64) async throws(WireError) {
        let value = Int64(clamping: upTo)
        try await db.run { sql in
            try await sql.raw("UPDATE vt_sessions SET last_seq = \(bind: value) WHERE id = \(bind: id) AND last_seq < \(bind: value)").run()
        }
    }

    /// Records that the vault may use its sequence numbers up to `upTo` (reserved in blocks, so a host that takes the
    /// vault over starts above anything the app has seen, without a write per message).
    func reserveSend(id: String, upTo: UInt64) async throws(WireError) {
        let value = Int64(clamping: upTo)
        try await db.run { sql in
            try await sql.raw("UPDATE vt_sessions SET send_reserved = \(bind: value) WHERE id = \(bind: id) AND send_reserved < \(bind: value)").run()
        }
    }

    /// The old session after a rotation: still accepted until `at` plus the grace period.
    func supersede(id: String, at: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.raw("UPDATE vt_sessions SET superseded_at = \(bind: at.timeIntervalSince1970) WHERE id = \(bind: id) AND superseded_at IS NULL").run()
        }
    }

    /// Sessions that can no longer be used.
    func purge(now: Date, grace: TimeInterval) async throws(WireError) {
        let user = self.user, time = now.timeIntervalSince1970
        try await db.run { sql in
            try await sql.raw("""
                DELETE FROM vt_sessions WHERE user_guid = \(bind: user)
                  AND (expires_at < \(bind: time) OR (superseded_at IS NOT NULL AND superseded_at < \(bind: time - grace)))
                """).run()
        }
    }

    // MARK: handled commands

    func handled(eventID: String) async throws(WireError) -> Data? {
        let id = "\(user)|\(eventID)"
        guard let row = try await db.run({ sql in
            try await sql.select().column("response_sealed").from("vt_events").where("id", .equal, id).first(decoding: SealedResponseRow.self)
        }) else { return nil }
        return try keyring.open(row.response_sealed, table: "vt_events", row: id)
    }

    func recordHandled(eventID: String, response: Data, now: Date) async throws(WireError) {
        let id = "\(user)|\(eventID)"
        let sealed = try keyring.seal(response, table: "vt_events", row: id)
        let user = self.user
        try await db.run { sql in
            try await sql.insert(into: "vt_events").columns("id", "user_guid", "response_sealed", "created_at")
                .values(SQLBind(id), SQLBind(user), SQLBind(sealed), SQLBind(now.timeIntervalSince1970)).run()
        }
    }

    /// Answers kept for retries are dropped after `age` (a retry comes within minutes, not days).
    func purgeHandled(before: Date) async throws(WireError) {
        let user = self.user
        try await db.run { sql in
            try await sql.delete(from: "vt_events").where("user_guid", .equal, user).where("created_at", .lessThan, before.timeIntervalSince1970).run()
        }
    }
}
