import Foundation
import TesseraJOSE
import TesseraCore

/// What `connection.create-invite` hands out, passed to the peer out of band (QR code, link) and opaque to both
/// apps: base64url of the JSON `{v: 1, connection_id, inviter_guid, inviter_connection_key (X25519), credentials
/// (NATS creds text for publishing to the inviter's MessageSpace), nats_endpoint, expires_at, label?}`. The accepting
/// vault checks `expires_at` against its clock.
public struct ConnectionInvite: Sendable, Equatable {
    public static let version = 1
    /// A creds file (user JWT + seed) is about 1.5 KB; this bound keeps every valid invite under `maxStringBytes`.
    public static let maxCredentialsBytes = 16 * 1024
    public static let maxEndpointBytes = 4096
    /// The invite text as it travels (also the limit of `connection.store-credentials`'s `invite`).
    public static let maxStringBytes = VaultLimits.maxValueBytes

    public var connectionID: String
    public var inviterGUID: String
    /// X25519, raw 32 bytes.
    public var inviterConnectionKey: Data
    public var credentials: String
    public var natsEndpoint: String
    public var expiresAt: Int64
    public var label: String?

    public init(
        connectionID: String, inviterGUID: String, inviterConnectionKey: Data, credentials: String, natsEndpoint: String,
        expiresAt: Int64, label: String? = nil
    ) {
        self.connectionID = connectionID
        self.inviterGUID = inviterGUID
        self.inviterConnectionKey = inviterConnectionKey
        self.credentials = credentials
        self.natsEndpoint = natsEndpoint
        self.expiresAt = expiresAt
        self.label = label
    }

    public init(string: String) throws(VaultProtocolError) {
        guard string.utf8.count <= Self.maxStringBytes else { throw .tooLarge(limit: Self.maxStringBytes) }
        guard let data = try? Base64URL.decode(string) else { throw .malformed("the invite is not base64url") }
        try self.init(json: VaultFields.parse(data, limit: Self.maxStringBytes, "invite"))
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            json, "invite",
            allowed: ["v", "connection_id", "inviter_guid", "inviter_connection_key", "credentials", "nats_endpoint", "expires_at", "label"])
        let version = try fields.integer("v")
        guard version == Int64(Self.version) else { throw .unsupportedVersion(Int(clamping: version)) }
        connectionID = try fields.token("connection_id")
        inviterGUID = try fields.guid("inviter_guid")
        inviterConnectionKey = try fields.x25519Key("inviter_connection_key")
        credentials = try fields.string("credentials", max: Self.maxCredentialsBytes)
        natsEndpoint = try fields.string("nats_endpoint", max: Self.maxEndpointBytes)
        expiresAt = try fields.integer("expires_at")
        label = try fields.optionalKey("label")
    }

    public var json: JSONObject {
        var json: JSONObject = [
            "v": .integer(Int64(Self.version)), "connection_id": .string(connectionID), "inviter_guid": .string(inviterGUID),
            "inviter_connection_key": VaultJSON.bytes(inviterConnectionKey), "credentials": .string(credentials),
            "nats_endpoint": .string(natsEndpoint), "expires_at": .integer(expiresAt),
        ]
        if let label { json["label"] = .string(label) }
        return json
    }

    public func encoded() -> String { Base64URL.encode(json.serialized()) }
}
