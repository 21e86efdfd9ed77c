import Foundation

struct UserRow: Codable, Sendable {
    let id: String
    let device_public_key: String
    let kdf: String
    let enrolled: Bool
    let credential_id: String?
    let cek_version: Int
    let lat_id: String?
    let lat_version: Int
    let lat_sealed: String?
    /// The LAT of the version the device last presented successfully (nil before the first authentication).
    let lat_previous_version: Int?
    let lat_previous_sealed: String?
    let failed_attempts: Int
    let locked_until: Double
}

struct EnrollmentRow: Codable, Sendable {
    let id: String
    let user_guid: String
    let password_key_id: String
    let password_hash_sealed: String?
}

struct ActionTokenRow: Codable, Sendable {
    let jti: String
    let user_guid: String
    let scope: String
    let use_key_id: String
}

struct KeyRow: Codable, Sendable {
    let id: String
    let public_key: String
}

struct SealedRow: Codable, Sendable {
    let private_sealed: String
}
