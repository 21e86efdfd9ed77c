import Fluent
import SQLKit

/// Connections between vaults and the messages they carry (a second migration: `CreateVaultSchema` is already
/// deployed). Everything secret — X25519 private keys, the peer's NATS credentials, the credentials issued to the peer,
/// the peer's guid and the label, message bodies — is sealed under the user's key (`VaultKeyring`, AAD =
/// table|user|row). In clear: the connection id (it travels in clear on the bus anyway), status, counters and times.
struct CreateVaultConnectionSchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("vt_connections")
            .field("id", .string, .identifier(auto: false))  // user|connection_id
            .field("user_guid", .string, .required)
            .field("connection_id", .string, .required)
            .field("status", .string, .required)  // pending | active | revoked
            .field("state_sealed", .string, .required)  // ConnectionSecrets, sealed
            .field("version", .int64, .required)  // optimistic concurrency: every state change is conditional on it
            .field("send_seq", .int64, .required)  // the last seq this vault used towards the peer
            .field("recv_seq", .int64, .required)  // the highest seq accepted from the peer (replay floor after a restart)
            .field("invite_expires_at", .double)  // an inviter's pending invite: accepted only until then
            .field("created_at", .double, .required)
            .field("updated_at", .double, .required)
            .field("rotated_at", .double)
            .create()
        try await database.schema("vt_messages")
            .field("id", .string, .identifier(auto: false))  // user|connection_id|HMAC(direction|message_id)
            .field("user_guid", .string, .required)
            .field("connection_id", .string, .required)
            .field("direction", .string, .required)  // out | in
            .field("body_sealed", .string, .required)  // StoredMessage, sealed
            .field("delivered_at", .double)  // out: when the peer's vault acknowledged it
            .field("read_at", .double)
            .field("created_at", .double, .required)
            .create()
        let sql = database as? any SQLDatabase
        try await sql?.raw("CREATE INDEX vt_connections_user ON vt_connections (user_guid)").run()
        try await sql?.raw("CREATE INDEX vt_messages_user ON vt_messages (user_guid, connection_id)").run()
    }

    func revert(on database: any Database) async throws {
        for table in ["vt_messages", "vt_connections"] { try await database.schema(table).delete() }
    }
}

/// `message.list` reads a user's messages in stored order.
struct AddVaultMessageListIndex: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await (database as? any SQLDatabase)?.raw("CREATE INDEX vt_messages_stored ON vt_messages (user_guid, created_at)").run()
    }

    func revert(on database: any Database) async throws {
        try await (database as? any SQLDatabase)?.raw("DROP INDEX vt_messages_stored").run()
    }
}
