import Foundation
import SQLKit
import ServiceSupport

struct AccountRow: Codable, Sendable {
    let id: String
    let email: String
    let password_hash: String
    let totp_secret: String?
    let totp_enabled: Bool
    let last_totp_step: Int64
    let failed_logins: Int
    let locked_until: Double
}

struct SessionRow: Codable, Sendable {
    let id: String
    let account_id: String
    let csrf_token: String
    let expires_at: Double
}

/// Accounts and their sessions. Session tokens are stored hashed (a database reader cannot log in); failure
/// counters and TOTP steps move with one conditional UPDATE each.
struct AccountStore: Sendable {
    let db: ProviderSQL

    func insert(id: String, email: String, passwordHash: String, totpSecret: String, now: Date) async throws(WireError) -> Bool {
        try await db.run { sql in
            guard try await sql.select().column("id").from("wp_accounts").where("email", .equal, email).first() == nil
            else { return false }
            do {
                try await sql.insert(into: "wp_accounts")
                    .columns("id", "email", "password_hash", "totp_secret", "totp_enabled", "last_totp_step",
                        "failed_logins", "locked_until", "created_at")
                    .values(SQLBind(id), SQLBind(email), SQLBind(passwordHash), SQLBind(totpSecret), SQLBind(false),
                        SQLBind(Int64(0)), SQLBind(0), SQLBind(0.0), SQLBind(now.timeIntervalSince1970))
                    .run()
                return true
            } catch {
                if try await sql.select().column("id").from("wp_accounts").where("email", .equal, email).first() != nil {
                    return false
                }
                throw error
            }
        }
    }

    func find(email: String) async throws(WireError) -> AccountRow? {
        try await db.run { sql in
            try await sql.select().columns("*").from("wp_accounts").where("email", .equal, email).first(decoding: AccountRow.self)
        }
    }

    func find(id: String) async throws(WireError) -> AccountRow? {
        try await db.run { sql in
            try await sql.select().columns("*").from("wp_accounts").where("id", .equal, id).first(decoding: AccountRow.self)
        }
    }

    /// Counts a failed login; the `limit`-th failure locks the account until `lockUntil` and resets the count.
    func recordFailure(id: String, limit: Int, lockUntil: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.update("wp_accounts").set("failed_logins", to: SQLRaw("failed_logins + 1"))
                .where("id", .equal, id).run()
            try await sql.update("wp_accounts").set("failed_logins", to: SQLBind(0))
                .set("locked_until", to: SQLBind(lockUntil.timeIntervalSince1970))
                .where("id", .equal, id).where("failed_logins", .greaterThanOrEqual, limit).run()
        }
    }

    /// Accepts a TOTP time step only if it is newer than the last one accepted (RFC 6238 §5.2: a code is used
    /// once), clears the failure count and, on first use, enables the second factor.
    func acceptLogin(id: String, totpStep: Int64) async throws(WireError) -> Bool {
        try await db.run { sql in
            try await sql.update("wp_accounts").set("last_totp_step", to: SQLBind(totpStep))
                .set("failed_logins", to: SQLBind(0)).set("totp_enabled", to: SQLBind(true))
                .where("id", .equal, id).where("last_totp_step", .lessThan, totpStep)
                .returning("id").first() != nil
        }
    }

    /// Turns a pending second factor on with its first code, in one statement: only while it is still pending and
    /// for a step newer than any accepted (so a concurrent login or a second confirmation cannot both use one code).
    func enableSecondFactor(id: String, totpStep: Int64) async throws(WireError) -> Bool {
        try await db.run { sql in
            try await sql.update("wp_accounts").set("last_totp_step", to: SQLBind(totpStep))
                .set("failed_logins", to: SQLBind(0)).set("totp_enabled", to: SQLBind(true))
                .where("id", .equal, id).where("totp_enabled", .equal, SQLBind(false))
                .where("last_totp_step", .lessThan, totpStep)
                .returning("id").first() != nil
        }
    }

    func createSession(id: String, accountID: String, csrfToken: String, expiresAt: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.insert(into: "wp_sessions").columns("id", "account_id", "csrf_token", "expires_at")
                .values(SQLBind(id), SQLBind(accountID), SQLBind(csrfToken), SQLBind(expiresAt.timeIntervalSince1970))
                .run()
        }
    }

    func session(id: String, now: Date) async throws(WireError) -> SessionRow? {
        try await db.run { sql in
            try await sql.select().columns("*").from("wp_sessions").where("id", .equal, id)
                .where("expires_at", .greaterThan, now.timeIntervalSince1970).first(decoding: SessionRow.self)
        }
    }

    func deleteSession(id: String) async throws(WireError) {
        try await db.run { sql in try await sql.delete(from: "wp_sessions").where("id", .equal, id).run() }
    }

    /// Every row of the account, in one transaction: instances, sessions, the account itself. The instances' status
    /// list entries stay, flipped to INVALID: an attestation issued before the purge must read as revoked.
    func purge(accountID: String) async throws(WireError) {
        try await db.transaction { tx in
            let instances = try await InstanceStore(db: tx).list(accountID: accountID).map(\.id)
            try await StatusListStore.invalidate(instanceIDs: instances, on: tx)
            try await tx.run { sql in
                try await sql.delete(from: "wp_wallet_instances").where("account_id", .equal, accountID).run()
                try await sql.delete(from: "wp_sessions").where("account_id", .equal, accountID).run()
                try await sql.delete(from: "wp_accounts").where("id", .equal, accountID).run()
            }
        }
    }
}
