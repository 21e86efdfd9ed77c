import Foundation
import SQLKit
import ServiceSupport

/// Nonces (IT-Wallet "Nonce Endpoint"): random, single use, short-lived. Consumed by one
/// `DELETE … WHERE id = ? AND expires_at > now RETURNING id`, so of any number of concurrent uses exactly one wins.
struct NonceStore: Sendable {
    let db: ProviderSQL

    func insert(_ nonce: String, expiresAt: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.insert(into: "wp_nonces").columns("id", "expires_at")
                .values(SQLBind(nonce), SQLBind(expiresAt.timeIntervalSince1970)).run()
        }
    }

    /// Many nonces in one statement (one commit): what `NoncePool` stores before it hands any of them out.
    func insert(batch nonces: [String], expiresAt: Date) async throws(WireError) {
        guard !nonces.isEmpty else { return }
        try await db.run { sql in
            var insert = sql.insert(into: "wp_nonces").columns("id", "expires_at")
            for nonce in nonces { insert = insert.values(SQLBind(nonce), SQLBind(expiresAt.timeIntervalSince1970)) }
            try await insert.run()
        }
    }

    /// True when the nonce existed, was unexpired and is now used up.
    func consume(_ nonce: String, now: Date) async throws(WireError) -> Bool {
        guard nonce.utf8.count <= 128 else { return false }
        return ServiceMetrics.consumed("nonce", when: try await db.run { sql in
            try await sql.delete(from: "wp_nonces").where("id", .equal, nonce)
                .where("expires_at", .greaterThan, now.timeIntervalSince1970)
                .returning("id").first() != nil
        })
    }

    /// Expired nonces are deleted now and then (they can no longer be used anyway).
    func purgeExpired(now: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.delete(from: "wp_nonces").where("expires_at", .lessThanOrEqual, now.timeIntervalSince1970).run()
        }
    }
}
