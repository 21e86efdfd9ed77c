import Crypto
import Foundation
import SQLKit
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// Every statement the ledger runs. Single-use values are taken by one conditional statement, so of any number of
/// concurrent uses exactly one succeeds.
struct LedgerStore: Sendable {
    let db: ServiceSQL

    static func hashID(_ secret: String) -> String { Base64URL.encode(SHA256.hash(data: Data(secret.utf8))) }

    // MARK: invitations

    func insertInvitation(code: String, expiresAt: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.insert(into: "lg_invitations").columns("id", "expires_at", "used")
                .values(SQLBind(Self.hashID(code)), SQLBind(expiresAt.timeIntervalSince1970), SQLBind(false)).run()
        }
    }

    func consumeInvitation(code: String, now: Date) async throws(WireError) -> Bool {
        ServiceMetrics.consumed("invitation", when: try await db.run { sql in
            try await sql.update("lg_invitations").set("used", to: SQLBind(true))
                .where("id", .equal, Self.hashID(code)).where("used", .equal, SQLBind(false))
                .where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .returning("id").first() != nil
        })
    }

    // MARK: users

    func user(_ guid: String) async throws(WireError) -> UserRow? {
        guard guid.utf8.count <= 64 else { return nil }
        return try await db.run { sql in
            try await sql.select().columns("*").from("lg_users").where("id", .equal, guid).first(decoding: UserRow.self)
        }
    }

    /// One more failed attempt; the `limit`-th locks the account until `lockUntil`. After a lockout has run out the
    /// count starts again (every row's old values are read by both SET expressions, on SQLite and PostgreSQL alike).
    func recordFailure(_ guid: String, limit: Int, now: Date, lockUntil: Date) async throws(WireError) {
        let expired = now.timeIntervalSince1970
        try await db.run { sql in
            try await sql.raw("""
                UPDATE lg_users SET
                  failed_attempts = CASE WHEN locked_until > 0 AND locked_until <= \(bind: expired) THEN 1 ELSE failed_attempts + 1 END,
                  locked_until = CASE
                    WHEN (CASE WHEN locked_until > 0 AND locked_until <= \(bind: expired) THEN 1 ELSE failed_attempts + 1 END) >= \(bind: limit)
                      THEN \(bind: lockUntil.timeIntervalSince1970)
                    WHEN locked_until > 0 AND locked_until <= \(bind: expired) THEN 0
                    ELSE locked_until END
                WHERE id = \(bind: guid)
                """).run()
        }
    }

    // MARK: transaction keys

    /// Takes the key if it is the user's and unused: one `DELETE … RETURNING`, so of concurrent uses one wins, and a
    /// spent key leaves nothing behind (the table holds only the unused pool); returns its sealed private half.
    func consumeKey(_ keyID: String, user: String) async throws(WireError) -> String? {
        guard keyID.utf8.count <= 64 else { return nil }
        let sealed = try await db.run { sql in
            try await sql.delete(from: "lg_transaction_keys")
                .where("id", .equal, keyID).where("user_guid", .equal, user).where("used", .equal, SQLBind(false))
                .returning("private_sealed").first(decoding: SealedRow.self)?.private_sealed
        }
        ServiceMetrics.consumed("transaction_key", when: sealed != nil)
        return sealed
    }

    func unusedKeys(user: String) async throws(WireError) -> [KeyRow] {
        try await db.run { sql in
            try await sql.select().columns("id", "public_key").from("lg_transaction_keys")
                .where("user_guid", .equal, user).where("used", .equal, SQLBind(false))
                .orderBy("created_at").orderBy("id").all(decoding: KeyRow.self)
        }
    }

    // MARK: device nonces and action tokens

    /// Records a device nonce; false when it was seen before (a replay).
    func useDeviceNonce(user: String, nonce: String, expiresAt: Date, now: Date) async throws(WireError) -> Bool {
        ServiceMetrics.consumed("device_nonce", when: try await db.run { sql in
            try await sql.delete(from: "lg_device_nonces").where("expires_at", .lessThan, now.timeIntervalSince1970).run()
            let inserted = try await sql.insert(into: "lg_device_nonces").columns("id", "expires_at")
                .values(SQLBind("\(user)|\(nonce)"), SQLBind(expiresAt.timeIntervalSince1970))
                .ignoringConflicts().returning("id").first()
            return inserted != nil
        })
    }

    func insertActionToken(token: String, jti: String, user: String, scope: String, keyID: String, expiresAt: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.insert(into: "lg_action_tokens").columns("id", "jti", "user_guid", "scope", "use_key_id", "expires_at", "used")
                .values(SQLBind(Self.hashID(token)), SQLBind(jti), SQLBind(user), SQLBind(scope), SQLBind(keyID),
                        SQLBind(expiresAt.timeIntervalSince1970), SQLBind(false)).run()
        }
    }

    func consumeActionToken(_ token: String, now: Date) async throws(WireError) -> ActionTokenRow? {
        guard token.utf8.count <= 128 else { return nil }
        // Taken by one `DELETE … RETURNING` (single use, and spent tokens do not pile up).
        let row = try await db.run { sql in
            try await sql.delete(from: "lg_action_tokens")
                .where("id", .equal, Self.hashID(token)).where("used", .equal, SQLBind(false))
                .where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .returning("jti", "user_guid", "scope", "use_key_id").first(decoding: ActionTokenRow.self)
        }
        ServiceMetrics.consumed("action_token", when: row != nil)
        return row
    }

    // MARK: enrollments

    func enrollment(session: String, now: Date) async throws(WireError) -> EnrollmentRow? {
        guard session.utf8.count <= 128 else { return nil }
        return try await db.run { sql in
            try await sql.select().columns("id", "user_guid", "password_key_id", "password_hash_sealed").from("lg_enrollments")
                .where("id", .equal, Self.hashID(session)).where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .first(decoding: EnrollmentRow.self)
        }
    }

    func setPasswordHash(session: String, sealed: String) async throws(WireError) {
        try await db.run { sql in
            try await sql.update("lg_enrollments").set("password_hash_sealed", to: SQLBind(sealed))
                .where("id", .equal, Self.hashID(session)).run()
        }
    }

    /// Takes the enrollment (it finalizes once).
    func takeEnrollment(session: String, now: Date) async throws(WireError) -> EnrollmentRow? {
        let row = try await db.run { sql in
            try await sql.delete(from: "lg_enrollments").where("id", .equal, Self.hashID(session))
                .where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .returning("id", "user_guid", "password_key_id", "password_hash_sealed").first(decoding: EnrollmentRow.self)
        }
        ServiceMetrics.consumed("enrollment_session", when: row != nil)
        return row
    }

    // MARK: CEKs

    func cek(user: String, version: Int) async throws(WireError) -> String? {
        try await db.run { sql in
            try await sql.select().column("private_sealed").from("lg_ceks").where("id", .equal, "\(user)|\(version)")
                .first(decoding: SealedRow.self)?.private_sealed
        }
    }
}
