import Fluent
import SQLKit

/// The ledger's tables. Times are seconds since 1970 (Double); sealed values are base64url text; single-use rows
/// carry a `used` flag flipped by one conditional UPDATE (or are deleted by one DELETE … RETURNING).
struct CreateLedgerSchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("lg_invitations")
            .field("id", .string, .identifier(auto: false))  // SHA-256 of the code
            .field("expires_at", .double, .required)
            .field("used", .bool, .required)
            .create()
        try await database.schema("lg_users")
            .field("id", .string, .identifier(auto: false))  // user_guid
            .field("device_id", .string, .required)
            .field("device_type", .string, .required)
            .field("device_public_key", .string, .required)
            .field("kdf", .string, .required)
            .field("enrolled", .bool, .required)
            .field("credential_id", .string)
            .field("cek_version", .int, .required)
            .field("lat_id", .string)
            .field("lat_version", .int, .required)
            .field("lat_sealed", .string)
            .field("failed_attempts", .int, .required)
            .field("locked_until", .double, .required)
            .field("created_at", .double, .required)
            .create()
        try await database.schema("lg_enrollments")
            .field("id", .string, .identifier(auto: false))  // SHA-256 of the enrollment session
            .field("user_guid", .string, .required, .references("lg_users", "id", onDelete: .cascade))
            .field("password_key_id", .string, .required)
            .field("password_hash_sealed", .string)
            .field("expires_at", .double, .required)
            .create()
        try await database.schema("lg_transaction_keys")
            .field("id", .string, .identifier(auto: false))  // key_id
            .field("user_guid", .string, .required, .references("lg_users", "id", onDelete: .cascade))
            .field("public_key", .string, .required)
            .field("private_sealed", .string, .required)
            .field("used", .bool, .required)
            .field("created_at", .double, .required)
            .create()
        try await database.schema("lg_ceks")
            .field("id", .string, .identifier(auto: false))  // user_guid|version
            .field("user_guid", .string, .required, .references("lg_users", "id", onDelete: .cascade))
            .field("version", .int, .required)
            .field("private_sealed", .string, .required)
            .create()
        try await database.schema("lg_action_tokens")
            .field("id", .string, .identifier(auto: false))  // SHA-256 of the token
            .field("jti", .string, .required)
            .field("user_guid", .string, .required, .references("lg_users", "id", onDelete: .cascade))
            .field("scope", .string, .required)
            .field("use_key_id", .string, .required)
            .field("expires_at", .double, .required)
            .field("used", .bool, .required)
            .create()
        try await database.schema("lg_device_nonces")
            .field("id", .string, .identifier(auto: false))  // user_guid|nonce
            .field("expires_at", .double, .required)
            .create()
        if let sql = database as? any SQLDatabase {
            try await sql.create(index: "lg_keys_user").on("lg_transaction_keys").column("user_guid").run()
        }
    }

    func revert(on database: any Database) async throws {
        for table in ["lg_device_nonces", "lg_action_tokens", "lg_ceks", "lg_transaction_keys", "lg_enrollments", "lg_users", "lg_invitations"] {
            try await database.schema(table).delete()
        }
    }
}

/// The LAT of the credential version the device last used successfully, kept next to the current one until the
/// device uses the current package (see `CredentialIssuer`). One column per ALTER: SQLite adds one at a time.
struct AddLedgerPreviousLAT: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("lg_users").field("lat_previous_version", .int).update()
        try await database.schema("lg_users").field("lat_previous_sealed", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("lg_users").deleteField("lat_previous_sealed").update()
        try await database.schema("lg_users").deleteField("lat_previous_version").update()
    }
}

/// Every migration of the ledger, in order.
enum LedgerMigrations {
    static var all: [any Migration] { [CreateLedgerSchema(), AddLedgerPreviousLAT()] }
}
