import Fluent
import SQLKit

/// The vault hosts' tables (shared by every host of a deployment). Times are seconds since 1970 (Double); sealed
/// values are base64url text, encrypted under the user's data key (or, for that key and the identity key, under
/// `vault-master.key`), with the table, user and row as AAD. Record names are stored as an HMAC under the user's
/// key, so a dump shows neither names nor values.
struct CreateVaultSchema: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("vt_vaults")
            .field("id", .string, .identifier(auto: false))  // user guid (no dashes)
            .field("identity_public_key", .string, .required)
            .field("identity_sealed", .string, .required)
            .field("data_key_sealed", .string, .required)
            .field("desired_state", .string, .required)  // running | stopped | terminated
            .field("state", .string, .required)  // provisioning | running | stopping | stopped | terminated
            .field("progress", .int, .required)
            .field("lease_holder", .string)
            .field("lease_expires", .double, .required)
            .field("record_version", .int64, .required)  // the user's last record version (credential.sync)
            .field("created_at", .double, .required)
            .field("updated_at", .double, .required)
            .create()
        try await database.schema("vt_records")
            .field("id", .string, .identifier(auto: false))  // user|collection|HMAC(name)
            .field("user_guid", .string, .required)
            .field("collection", .string, .required)
            .field("name_sealed", .string, .required)
            .field("value_sealed", .string)  // NULL = deleted (a tombstone for sync)
            .field("version", .int64, .required)
            .field("updated_at", .double, .required)
            .create()
        try await database.schema("vt_events")
            .field("id", .string, .identifier(auto: false))  // user|event id: a command handled once
            .field("user_guid", .string, .required)
            .field("response_sealed", .string, .required)
            .field("created_at", .double, .required)
            .create()
        try await database.schema("vt_sessions")
            .field("id", .string, .identifier(auto: false))  // session_id
            .field("user_guid", .string, .required)
            .field("key_sealed", .string, .required)
            .field("created_at", .double, .required)
            .field("expires_at", .double, .required)
            .field("last_seq", .int64, .required)  // app seqs reserved for receiving (SeqReservation)
            .field("send_reserved", .int64, .required)  // the vault's sequence numbers up to here may have been used
            .field("superseded_at", .double)
            .create()
        try await database.schema("vt_app_credentials")
            .field("id", .string, .identifier(auto: false))  // credential_id
            .field("user_guid", .string, .required)
            .field("nats_user", .string, .required)
            .field("expires_at", .double, .required)
            .field("created_at", .double, .required)
            .create()
        try await database.schema("vt_revocations")
            .field("id", .string, .identifier(auto: false))  // user|nats user public key
            .field("user_guid", .string, .required)
            .field("nats_user", .string, .required)
            .field("revoked_at", .int64, .required)
            .create()
        let sql = database as? any SQLDatabase
        try await sql?.raw("CREATE INDEX vt_records_user ON vt_records (user_guid, collection, version)").run()
        try await sql?.raw("CREATE INDEX vt_vaults_lease ON vt_vaults (desired_state, lease_expires)").run()
        try await sql?.raw("CREATE INDEX vt_events_user ON vt_events (user_guid, created_at)").run()
        try await sql?.raw("CREATE INDEX vt_sessions_user ON vt_sessions (user_guid)").run()
    }

    func revert(on database: any Database) async throws {
        for table in ["vt_revocations", "vt_app_credentials", "vt_sessions", "vt_events", "vt_records", "vt_vaults"] {
            try await database.schema(table).delete()
        }
    }
}
