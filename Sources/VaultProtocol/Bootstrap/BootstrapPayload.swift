import Crypto
import Foundation
import TesseraCore
import TesseraJOSE

/// The payload of the plaintext `app.bootstrap` event: `{device_id, device_type, app_version, requested_ttl_hours
/// (1…168), app_session_public_key (X25519, base64url)}` (vault-design.md, "Wire formats").
public struct BootstrapPayload: Sendable, Equatable {
    public static let ttlHours: ClosedRange<Int> = 1...168

    public var deviceID: String
    public var deviceType: String
    public var appVersion: String
    public var requestedTTLHours: Int
    /// Raw 32 bytes.
    public var appSessionPublicKey: Data

    public init(deviceID: String, deviceType: String, appVersion: String, requestedTTLHours: Int, appSessionPublicKey: Data) {
        self.deviceID = deviceID
        self.deviceType = deviceType
        self.appVersion = appVersion
        self.requestedTTLHours = requestedTTLHours
        self.appSessionPublicKey = appSessionPublicKey
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            json, "bootstrap", allowed: ["device_id", "device_type", "app_version", "requested_ttl_hours", "app_session_public_key"])
        deviceID = try fields.key("device_id")
        deviceType = try fields.key("device_type")
        appVersion = try fields.key("app_version")
        requestedTTLHours = Int(try fields.integer("requested_ttl_hours", in: 1...168))
        appSessionPublicKey = try fields.x25519Key("app_session_public_key")
    }

    public var json: JSONObject {
        [
            "device_id": .string(deviceID), "device_type": .string(deviceType), "app_version": .string(appVersion),
            "requested_ttl_hours": .integer(Int64(requestedTTLHours)), "app_session_public_key": VaultJSON.bytes(appSessionPublicKey),
        ]
    }
}

/// The app's NATS creds file, encrypted to the new session so that the bus operator never reads the app's seed:
/// `{nonce, ciphertext}` (base64url), ChaCha20-Poly1305 under the session key, AAD
/// `"app-vault-v1|bootstrap|" + session_id`. Also what `credentials.refresh` and the `credentials.rotate` push carry.
public struct SealedCredentials: Sendable, Equatable {
    public let nonce: Data
    public let ciphertext: Data

    public init(nonce: Data, ciphertext: Data) throws(VaultProtocolError) {
        guard nonce.count == 12 else { throw .malformed("credentials.nonce must be 12 bytes") }
        guard ciphertext.count >= 16, ciphertext.count <= VaultLimits.maxValueBytes + 16 else {
            throw .malformed("credentials.ciphertext has an impossible length")
        }
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    public static func aad(sessionID: String) -> Data { Data("app-vault-v1|bootstrap|\(sessionID)".utf8) }

    /// Throws `encryptionFailed` for a key that is not 256 bits or a random source that does not deliver 12 bytes,
    /// `tooLarge` for creds over 64 KiB.
    public static func seal(_ creds: Data, key: SymmetricKey, sessionID: String, random: some RandomSource) throws(VaultProtocolError) -> SealedCredentials {
        guard creds.count <= VaultLimits.maxValueBytes else { throw .tooLarge(limit: VaultLimits.maxValueBytes) }
        let (nonce, ciphertext) = try VaultAEAD.seal(creds, key: key, aad: aad(sessionID: sessionID), random: random)
        return try SealedCredentials(nonce: nonce, ciphertext: ciphertext)
    }

    /// Every failure is `decryptionFailed`.
    public func open(key: SymmetricKey, sessionID: String) throws(VaultProtocolError) -> Data {
        try VaultAEAD.open(nonce: nonce, ciphertext: ciphertext, key: key, aad: Self.aad(sessionID: sessionID))
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "credentials", allowed: ["nonce", "ciphertext"])
        try self.init(nonce: fields.bytes("nonce", count: 12), ciphertext: fields.bytes("ciphertext", minimum: 16, maximum: VaultLimits.maxValueBytes + 16))
    }

    public var json: JSONObject { ["nonce": VaultJSON.bytes(nonce), "ciphertext": VaultJSON.bytes(ciphertext)] }
}
