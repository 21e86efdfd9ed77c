import Fluent
import SQLKit

/// The Token Status List tables (IT-Wallet 1.5 "Token Status List (Wallet Unit Attestation Profile)"; 1.3 Key
/// Attestations' `status` uses them too), and the Wallet Solution version 1.3+ requests state.
///
/// - `wp_status_lists`: one row per list: its capacity, whether it still takes new entries, `version` (bumped by
///   every flip, in the flipping transaction), and the last signed tokens with the version they show — kept here so
///   that every provider instance on one PostgreSQL serves the same token.
/// - `wp_status_entries`: one row per allocated index, unique per (list, index); `status` 0 VALID, 1 INVALID; the
///   instance it belongs to and what for (`wia` once per instance, `ka` per Key Attestation); `maintained_until`,
///   the `exp` the attestation promised (1.5 `client_status.exp`, `key_storage_status.exp`). No foreign key to the
///   instance: an entry must outlive an instance deleted with its account, still saying INVALID.
struct CreateStatusListSchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("wp_status_lists")
            .field("id", .string, .identifier(auto: false))
            .field("bits", .int, .required)
            .field("capacity", .int, .required)
            .field("accepting", .bool, .required)
            .field("version", .int64, .required)
            .field("created_at", .double, .required)
            .field("token_version", .int64, .required)
            .field("token_issued_at", .double, .required)
            .field("token_jwt", .string)
            .field("token_cwt", .string)
            .create()
        try await database.schema("wp_status_entries")
            .field("list_id", .string, .required, .references("wp_status_lists", "id"))
            .field("idx", .int, .required)
            .field("instance_id", .string, .required)
            .field("purpose", .string, .required)
            .field("status", .int, .required)
            .field("maintained_until", .double, .required)
            .field("created_at", .double, .required)
            .unique(on: "list_id", "idx")
            .create()
        try await database.schema("wp_wallet_instances").field("wallet_solution_version", .string).update()
        guard let sql = database as? any SQLDatabase else { return }
        try await sql.create(index: "wp_status_entries_instance").on("wp_status_entries").column("instance_id").run()
        // One WIA entry per instance (the 1.5 "per-issuer reuse" preference), enforced by the database: a partial
        // unique index, the same statement on SQLite and PostgreSQL.
        try await sql.raw(
            "CREATE UNIQUE INDEX wp_status_entries_wia ON wp_status_entries (instance_id) WHERE purpose = 'wia'"
        ).run()
        try await sql.create(index: "wp_status_lists_accepting").on("wp_status_lists").column("accepting").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("wp_status_entries").delete()
        try await database.schema("wp_status_lists").delete()
        try await database.schema("wp_wallet_instances").deleteField("wallet_solution_version").update()
    }
}
