import Foundation
import TesseraJOSE

/// `session.rotate {new_app_public_key}` → `SessionRotateResult` (vault-design.md, "Rotation": due after 1000
/// messages or 24 h; the old session stays valid for 60 s after the new one is first used).
public struct SessionRotateRequest: VaultRequestPayload {
    public static let handler = VaultHandler.sessionRotate
    public typealias Result = SessionRotateResult
    /// X25519, raw 32 bytes.
    public var newAppPublicKey: Data

    public init(newAppPublicKey: Data) { self.newAppPublicKey = newAppPublicKey }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        newAppPublicKey = try VaultFields(payload, Self.handler.rawValue, allowed: ["new_app_public_key"]).x25519Key("new_app_public_key")
    }

    public var payload: JSONObject { ["new_app_public_key": VaultJSON.bytes(newAppPublicKey)] }
}

/// `{new_vault_public_key, new_session_id, session_expires_at}`: both sides derive the new key with
/// `VaultSessionKey.derive(…, sessionID: new_session_id)`.
public struct SessionRotateResult: VaultResultPayload {
    public var newVaultPublicKey: Data
    public var newSessionID: String
    public var sessionExpiresAt: Int64

    public init(newVaultPublicKey: Data, newSessionID: String, sessionExpiresAt: Int64) {
        self.newVaultPublicKey = newVaultPublicKey
        self.newSessionID = newSessionID
        self.sessionExpiresAt = sessionExpiresAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "session rotate result", allowed: ["new_vault_public_key", "new_session_id", "session_expires_at"])
        newVaultPublicKey = try fields.x25519Key("new_vault_public_key")
        newSessionID = try fields.token("new_session_id")
        sessionExpiresAt = try fields.integer("session_expires_at")
    }

    public var result: JSONObject {
        [
            "new_vault_public_key": VaultJSON.bytes(newVaultPublicKey), "new_session_id": .string(newSessionID),
            "session_expires_at": .integer(sessionExpiresAt),
        ]
    }
}
