import Foundation

/// Rows as SQLKit decodes them (column names are the schema's).
struct VaultRow: Decodable, Sendable {
    let id: String
    let identity_public_key: String
    let identity_sealed: String
    let data_key_sealed: String
    let desired_state: String
    let state: String
    let progress: Int
    let lease_holder: String?
    let lease_expires: Double
    let record_version: Int64
    let updated_at: Double
}

struct RecordRow: Decodable, Sendable {
    let id: String
    let name_sealed: String
    let value_sealed: String?
    let version: Int64
    let updated_at: Double
}

struct SessionRow: Decodable, Sendable {
    let id: String
    let key_sealed: String
    let expires_at: Double
    let last_seq: Int64
    let send_reserved: Int64
    let superseded_at: Double?
}

struct IDRow: Decodable, Sendable { let id: String }
struct VersionRow: Decodable, Sendable { let record_version: Int64 }
struct SealedResponseRow: Decodable, Sendable { let response_sealed: String }
struct CredentialRow: Decodable, Sendable {
    let id: String
    let expires_at: Double
}
struct RevocationRow: Decodable, Sendable {
    let nats_user: String
    let revoked_at: Int64
}
