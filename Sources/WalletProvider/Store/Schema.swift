import Fluent
import SQLKit

/// The provider's tables. Times are seconds since 1970 (Double), identifiers strings, so SQLite and PostgreSQL
/// hold the same rows and every single-use value can be taken by one conditional statement.
struct CreateProviderSchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("wp_nonces")
            .field("id", .string, .identifier(auto: false))
            .field("expires_at", .double, .required)
            .create()
        try await database.schema("wp_accounts")
            .field("id", .string, .identifier(auto: false))
            .field("email", .string, .required)
            .field("password_hash", .string, .required)
            .field("totp_secret", .string)
            .field("totp_enabled", .bool, .required)
            .field("last_totp_step", .int64, .required)
            .field("failed_logins", .int, .required)
            .field("locked_until", .double, .required)
            .field("created_at", .double, .required)
            .unique(on: "email")
            .create()
        try await database.schema("wp_sessions")
            .field("id", .string, .identifier(auto: false))
            .field("account_id", .string, .required, .references("wp_accounts", "id", onDelete: .cascade))
            .field("csrf_token", .string, .required)
            .field("expires_at", .double, .required)
            .create()
        try await database.schema("wp_wallet_instances")
            .field("id", .string, .identifier(auto: false))
            .field("account_id", .string, .required, .references("wp_accounts", "id", onDelete: .cascade))
            .field("hardware_key_tag", .string)
            .field("revoked_key_tag", .string)
            .field("public_key", .string)
            .field("platform", .string, .required)
            .field("device", .string, .required)
            .field("sign_count", .int64, .required)
            .field("status", .string, .required)
            .field("pid_status", .string, .required)
            .field("created_at", .double, .required)
            .field("revoked_at", .double)
            .unique(on: "hardware_key_tag")
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.create(index: "wp_instances_account").on("wp_wallet_instances").column("account_id").run()
            try await sql.create(index: "wp_instances_revoked_tag").on("wp_wallet_instances").column("revoked_key_tag").run()
        }
    }

    func revert(on database: any Database) async throws {
        for table in ["wp_wallet_instances", "wp_sessions", "wp_accounts", "wp_nonces"] {
            try await database.schema(table).delete()
        }
    }
}
