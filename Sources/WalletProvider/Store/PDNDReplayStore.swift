import Foundation
import SQLKit
import ServiceSupport

/// Single use of a PDND call's signature JWT: one `INSERT … ON CONFLICT DO NOTHING RETURNING`, so of concurrent
/// replays exactly one is taken. Expired rows are deleted as new ones arrive.
struct PDNDReplayStore: Sendable {
    let db: ProviderSQL

    /// True the first time `(client, jti)` is seen.
    func take(client: String, jti: String, expiresAt: Date, now: Date) async throws(WireError) -> Bool {
        ServiceMetrics.consumed("pdnd_jti", when: try await db.run { sql in
            try await sql.delete(from: "wp_pdnd_calls").where("expires_at", .lessThanOrEqual, now.timeIntervalSince1970).run()
            return try await sql.insert(into: "wp_pdnd_calls").columns("id", "expires_at")
                .values(SQLBind(client + "\n" + jti), SQLBind(expiresAt.timeIntervalSince1970))
                .ignoringConflicts()
                .returning("id").first() != nil
        })
    }
}
