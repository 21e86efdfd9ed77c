import Fluent

/// `wp_pdnd_calls`: the `jti` of every PDND e-service call's Agid-JWT-Signature, kept until the JWT expires, so a
/// call can be replayed neither on this provider instance nor on another one sharing the database.
struct CreatePDNDReplaySchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("wp_pdnd_calls")
            .field("id", .string, .identifier(auto: false))
            .field("expires_at", .double, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("wp_pdnd_calls").delete()
    }
}
