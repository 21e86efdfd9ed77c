import Foundation
import SQLKit
import ServiceSupport

/// What `wp_status_lists` holds about one list for serving it: its shape, its `version` (bumped in every flipping
/// transaction, `StatusListStore.invalidate`) and the last signed tokens with the version they show.
struct StatusListRow: Decodable, Sendable {
    let id: String
    let bits: Int
    let capacity: Int
    let version: Int64
    let token_version: Int64
    let token_issued_at: Double
    /// The compact JWS (TSL §5.1).
    let token_jwt: String?
    /// The CWT (TSL §5.2), base64url: the column is text on SQLite and PostgreSQL alike.
    let token_cwt: String?
}

/// Reads a list and its non-VALID entries, and keeps its signed tokens in its row, so that every provider instance
/// on one database serves the same token until the list changes.
struct StatusListTokenStore: Sendable {
    let db: ProviderSQL

    func list(id: String) async throws(WireError) -> StatusListRow? {
        try await db.run { sql in
            try await sql.select().columns("id", "bits", "capacity", "version", "token_version", "token_issued_at",
                "token_jwt", "token_cwt")
                .from("wp_status_lists").where("id", .equal, id)
                .first(decoding: StatusListRow.self)
        }
    }

    /// The indices of the list that are not VALID, with their status. Read after the row: a token built from them
    /// is at least as new as the row's `version` (it may be newer, which only costs one more rebuild).
    func nonValidEntries(listID: String) async throws(WireError) -> [(index: Int, status: UInt8)] {
        struct Row: Decodable { let idx: Int; let status: Int }
        return try await db.run { sql in
            try await sql.select().columns("idx", "status").from("wp_status_entries")
                .where("list_id", .equal, listID).where("status", .notEqual, SQLBind(0))
                .all(decoding: Row.self)
                .map { (index: $0.idx, status: UInt8(clamping: $0.status)) }
        }
    }

    /// Stores tokens showing `version`, issued at `issuedAt`, unless the row already holds newer ones (a concurrent
    /// rebuild on another instance): one conditional statement, so an older token never replaces a newer one.
    func store(listID: String, version: Int64, issuedAt: Double, jwt: String, cwt: String) async throws(WireError) {
        try await db.run { sql in
            try await sql.update("wp_status_lists")
                .set("token_version", to: SQLBind(version)).set("token_issued_at", to: SQLBind(issuedAt))
                .set("token_jwt", to: SQLBind(jwt)).set("token_cwt", to: SQLBind(cwt))
                .where("id", .equal, listID)
                .where { group in
                    group.where("token_version", .lessThan, SQLBind(version))
                        .orWhere { same in
                            same.where("token_version", .equal, SQLBind(version))
                                .where("token_issued_at", .lessThan, SQLBind(issuedAt))
                        }
                }
                .run()
        }
    }
}
