import Fluent

/// Why an instance was revoked, kept with it so the 1.0 management API can say so (`revocation_reason`, as the
/// production backend's status resource does). Rows revoked before this column existed have none.
struct AddInstanceRevocationReason: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("wp_wallet_instances").field("revocation_reason", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("wp_wallet_instances").deleteField("revocation_reason").update()
    }
}
