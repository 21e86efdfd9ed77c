import Foundation
import TesseraJOSE

/// `session_info` of the bootstrap reply: the new E2E session.
public struct SessionInfo: Sendable, Equatable {
    public var sessionID: String
    /// X25519, raw 32 bytes.
    public var vaultSessionPublicKey: Data
    public var sessionExpiresAt: Int64
    /// Always true from this vault; the app refuses a reply that says otherwise.
    public var encryptionEnabled: Bool
    /// The app's key, echoed: it binds the reply to the request that carried it.
    public var appSessionPublicKey: Data

    public init(sessionID: String, vaultSessionPublicKey: Data, sessionExpiresAt: Int64, encryptionEnabled: Bool = true, appSessionPublicKey: Data) {
        self.sessionID = sessionID
        self.vaultSessionPublicKey = vaultSessionPublicKey
        self.sessionExpiresAt = sessionExpiresAt
        self.encryptionEnabled = encryptionEnabled
        self.appSessionPublicKey = appSessionPublicKey
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            json, "session_info",
            allowed: ["session_id", "vault_session_public_key", "session_expires_at", "encryption_enabled", "app_session_public_key"])
        sessionID = try fields.token("session_id")
        vaultSessionPublicKey = try fields.x25519Key("vault_session_public_key")
        sessionExpiresAt = try fields.integer("session_expires_at")
        encryptionEnabled = try fields.bool("encryption_enabled")
        appSessionPublicKey = try fields.x25519Key("app_session_public_key")
    }

    public var json: JSONObject {
        [
            "session_id": .string(sessionID), "vault_session_public_key": VaultJSON.bytes(vaultSessionPublicKey),
            "session_expires_at": .integer(sessionExpiresAt), "encryption_enabled": .bool(encryptionEnabled),
            "app_session_public_key": VaultJSON.bytes(appSessionPublicKey),
        ]
    }
}

/// The `result` of a successful bootstrap reply (vault-design.md, "Wire formats").
public struct BootstrapResult: Sendable, Equatable {
    /// The app's full NATS creds, sealed to the new session (see `SealedCredentials`).
    public var credentials: SealedCredentials
    public var natsEndpoint: String
    /// `OwnerSpace.{guid}` and `MessageSpace.{guid}`.
    public var ownerSpace: String
    public var messageSpace: String
    /// The handler types this vault serves.
    public var topics: [String]
    /// When the creds expire (unix seconds), and their lifetime.
    public var expiresAt: Int64
    public var ttlSeconds: Int64
    public var credentialID: String
    public var sessionInfo: SessionInfo

    public init(
        credentials: SealedCredentials, natsEndpoint: String, ownerSpace: String, messageSpace: String, topics: [String],
        expiresAt: Int64, ttlSeconds: Int64, credentialID: String, sessionInfo: SessionInfo
    ) {
        self.credentials = credentials
        self.natsEndpoint = natsEndpoint
        self.ownerSpace = ownerSpace
        self.messageSpace = messageSpace
        self.topics = topics
        self.expiresAt = expiresAt
        self.ttlSeconds = ttlSeconds
        self.credentialID = credentialID
        self.sessionInfo = sessionInfo
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            json, "bootstrap result",
            allowed: [
                "credentials", "nats_endpoint", "owner_space", "message_space", "topics", "expires_at", "ttl_seconds",
                "credential_id", "session_info",
            ])
        credentials = try SealedCredentials(json: fields.object("credentials"))
        natsEndpoint = try fields.string("nats_endpoint", max: 4096)
        ownerSpace = try fields.key("owner_space")
        messageSpace = try fields.key("message_space")
        topics = try fields.keyList("topics")
        expiresAt = try fields.integer("expires_at")
        ttlSeconds = try fields.integer("ttl_seconds")
        credentialID = try fields.key("credential_id")
        sessionInfo = try SessionInfo(json: fields.object("session_info"))
    }

    public var json: JSONObject {
        [
            "credentials": .object(credentials.json), "nats_endpoint": .string(natsEndpoint), "owner_space": .string(ownerSpace),
            "message_space": .string(messageSpace), "topics": VaultJSON.keyList(topics), "expires_at": .integer(expiresAt),
            "ttl_seconds": .integer(ttlSeconds), "credential_id": .string(credentialID), "session_info": .object(sessionInfo.json),
        ]
    }
}
