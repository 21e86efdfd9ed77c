import TesseraJOSE

// connection.*: vault ↔ vault connections. A creates an invite (`create-invite`), hands it to B out of band; B's app
// gives it to B's vault (`store-credentials`), which answers A with a `connection.accept` peer message. Connection
// ids are one subject token: they are the session_id of the peer envelopes.

/// Where a connection stands.
public enum ConnectionStatus: String, Sendable, CaseIterable {
    /// Invite created, not yet accepted.
    case pending
    case active
    case revoked
}

/// `connection.create-invite {label?, ttl_seconds? (60…604800, default 86400)}` → `ConnectionCreateInviteResult`.
public struct ConnectionCreateInviteRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionCreateInvite
    public typealias Result = ConnectionCreateInviteResult
    public static let ttlRange: ClosedRange<Int64> = 60...604_800
    public static let defaultTTL: Int64 = 86_400
    public var label: String?
    public var ttlSeconds: Int64

    public init(label: String? = nil, ttlSeconds: Int64 = Self.defaultTTL) {
        self.label = label
        self.ttlSeconds = ttlSeconds
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["label", "ttl_seconds"])
        label = try fields.optionalKey("label")
        ttlSeconds = try fields.optionalInteger("ttl_seconds", in: Self.ttlRange) ?? Self.defaultTTL
    }

    public var payload: JSONObject {
        var json = JSONObject()
        if let label { json["label"] = .string(label) }
        json["ttl_seconds"] = .integer(ttlSeconds)
        return json
    }
}

/// `{connection_id, invite, expires_at}`: `invite` is a `ConnectionInvite` string, opaque to the app.
public struct ConnectionCreateInviteResult: VaultResultPayload {
    public var connectionID: String
    public var invite: String
    public var expiresAt: Int64

    public init(connectionID: String, invite: String, expiresAt: Int64) {
        self.connectionID = connectionID
        self.invite = invite
        self.expiresAt = expiresAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "create-invite result", allowed: ["connection_id", "invite", "expires_at"])
        connectionID = try fields.token("connection_id")
        invite = try fields.string("invite", max: VaultLimits.maxValueBytes)
        expiresAt = try fields.integer("expires_at")
    }

    public var result: JSONObject {
        ["connection_id": .string(connectionID), "invite": .string(invite), "expires_at": .integer(expiresAt)]
    }
}

/// `connection.store-credentials {invite, label?}` → `ConnectionStoreCredentialsResult`: accept an invite.
public struct ConnectionStoreCredentialsRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionStoreCredentials
    public typealias Result = ConnectionStoreCredentialsResult
    /// As received; the vault reads it with `ConnectionInvite(string:)`.
    public var invite: String
    public var label: String?

    public init(invite: String, label: String? = nil) {
        self.invite = invite
        self.label = label
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["invite", "label"])
        invite = try fields.string("invite", max: VaultLimits.maxValueBytes)
        label = try fields.optionalKey("label")
    }

    public var payload: JSONObject {
        var json: JSONObject = ["invite": .string(invite)]
        if let label { json["label"] = .string(label) }
        return json
    }
}

/// `{connection_id, peer_guid, status}`.
public struct ConnectionStoreCredentialsResult: VaultResultPayload {
    public var connectionID: String
    public var peerGUID: String
    public var status: ConnectionStatus

    public init(connectionID: String, peerGUID: String, status: ConnectionStatus) {
        self.connectionID = connectionID
        self.peerGUID = peerGUID
        self.status = status
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "store-credentials result", allowed: ["connection_id", "peer_guid", "status"])
        connectionID = try fields.token("connection_id")
        peerGUID = try fields.guid("peer_guid")
        status = try ConnectionPayloadField.status(fields)
    }

    public var result: JSONObject {
        ["connection_id": .string(connectionID), "peer_guid": .string(peerGUID), "status": .string(status.rawValue)]
    }
}

/// `connection.rotate {connection_id}` → `ConnectionRotateResult`: new connection keys and creds for one peer.
public struct ConnectionRotateRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionRotate
    public typealias Result = ConnectionRotateResult
    public var connectionID: String

    public init(connectionID: String) { self.connectionID = connectionID }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        connectionID = try VaultFields(payload, Self.handler.rawValue, allowed: ["connection_id"]).token("connection_id")
    }

    public var payload: JSONObject { ["connection_id": .string(connectionID)] }
}

public struct ConnectionRotateResult: VaultResultPayload {
    public var connectionID: String
    public var rotatedAt: Int64

    public init(connectionID: String, rotatedAt: Int64) {
        self.connectionID = connectionID
        self.rotatedAt = rotatedAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "rotate result", allowed: ["connection_id", "rotated_at"])
        connectionID = try fields.token("connection_id")
        rotatedAt = try fields.integer("rotated_at")
    }

    public var result: JSONObject { ["connection_id": .string(connectionID), "rotated_at": .integer(rotatedAt)] }
}

/// `connection.revoke {connection_id}` → `ConnectionRevokeResult`: the vault revokes the peer's creds locally
/// first, then tells the peer (`connection.revoke` peer message, the peer's app sees `connection-revoked`).
public struct ConnectionRevokeRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionRevoke
    public typealias Result = ConnectionRevokeResult
    public var connectionID: String

    public init(connectionID: String) { self.connectionID = connectionID }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        connectionID = try VaultFields(payload, Self.handler.rawValue, allowed: ["connection_id"]).token("connection_id")
    }

    public var payload: JSONObject { ["connection_id": .string(connectionID)] }
}

public struct ConnectionRevokeResult: VaultResultPayload {
    public var connectionID: String
    public var revoked: Bool

    public init(connectionID: String, revoked: Bool) {
        self.connectionID = connectionID
        self.revoked = revoked
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "revoke result", allowed: ["connection_id", "revoked"])
        connectionID = try fields.token("connection_id")
        revoked = try fields.bool("revoked")
    }

    public var result: JSONObject { ["connection_id": .string(connectionID), "revoked": .bool(revoked)] }
}

/// `connection.list {}` → `ConnectionListResult`.
public struct ConnectionListRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionList
    public typealias Result = ConnectionListResult

    public init() {}

    public init(payload: JSONObject) throws(VaultProtocolError) {
        _ = try VaultFields(payload, Self.handler.rawValue, allowed: [])
    }

    public var payload: JSONObject { JSONObject() }
}

/// One entry of `ConnectionListResult`: `{connection_id, peer_guid, label, status, created_at, rotated_at?}`.
public struct ConnectionSummary: Sendable, Equatable {
    public var connectionID: String
    public var peerGUID: String
    /// May be empty.
    public var label: String
    public var status: ConnectionStatus
    public var createdAt: Int64
    public var rotatedAt: Int64?

    public init(connectionID: String, peerGUID: String, label: String, status: ConnectionStatus, createdAt: Int64, rotatedAt: Int64? = nil) {
        self.connectionID = connectionID
        self.peerGUID = peerGUID
        self.label = label
        self.status = status
        self.createdAt = createdAt
        self.rotatedAt = rotatedAt
    }

    init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "connection", allowed: ["connection_id", "peer_guid", "label", "status", "created_at", "rotated_at"])
        connectionID = try fields.token("connection_id")
        peerGUID = try fields.guid("peer_guid")
        label = try fields.string("label", max: VaultLimits.maxKeyBytes, allowEmpty: true)
        status = try ConnectionPayloadField.status(fields)
        createdAt = try fields.integer("created_at")
        rotatedAt = try fields.optionalInteger("rotated_at")
    }

    var json: JSONObject {
        var json: JSONObject = [
            "connection_id": .string(connectionID), "peer_guid": .string(peerGUID), "label": .string(label),
            "status": .string(status.rawValue), "created_at": .integer(createdAt),
        ]
        if let rotatedAt { json["rotated_at"] = .integer(rotatedAt) }
        return json
    }
}

public struct ConnectionListResult: VaultResultPayload {
    public var connections: [ConnectionSummary]

    public init(connections: [ConnectionSummary]) { self.connections = connections }

    public init(result: JSONObject) throws(VaultProtocolError) {
        connections = try VaultFields(result, "connection list result", allowed: ["connections"]).list("connections", ConnectionSummary.init(json:))
    }

    public var result: JSONObject { ["connections": .array(connections.map { .object($0.json) })] }
}

/// `connection.get-credentials {connection_id}` → `ConnectionGetCredentialsResult`: what the peer may publish to
/// (never the creds themselves).
public struct ConnectionGetCredentialsRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionGetCredentials
    public typealias Result = ConnectionGetCredentialsResult
    public var connectionID: String

    public init(connectionID: String) { self.connectionID = connectionID }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        connectionID = try VaultFields(payload, Self.handler.rawValue, allowed: ["connection_id"]).token("connection_id")
    }

    public var payload: JSONObject { ["connection_id": .string(connectionID)] }
}

public struct ConnectionGetCredentialsResult: VaultResultPayload {
    public var connectionID: String
    public var peerGUID: String
    public var subjects: [String]
    public var expiresAt: Int64

    public init(connectionID: String, peerGUID: String, subjects: [String], expiresAt: Int64) {
        self.connectionID = connectionID
        self.peerGUID = peerGUID
        self.subjects = subjects
        self.expiresAt = expiresAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "get-credentials result", allowed: ["connection_id", "peer_guid", "subjects", "expires_at"])
        connectionID = try fields.token("connection_id")
        peerGUID = try fields.guid("peer_guid")
        subjects = try fields.keyList("subjects")
        expiresAt = try fields.integer("expires_at")
    }

    public var result: JSONObject {
        [
            "connection_id": .string(connectionID), "peer_guid": .string(peerGUID), "subjects": VaultJSON.keyList(subjects),
            "expires_at": .integer(expiresAt),
        ]
    }
}

/// `connection.notify-revoke {connection_id, reason?}` → `ConnectionNotifyRevokeResult`. This is what a vault
/// sends its peer (as the `connection.revoke` peer message) after revoking locally; the app never asks its vault to
/// notify a peer without revoking first (it sends `connection.revoke`), and sees a peer's notice only as the
/// `connection-revoked` push. The type is in the catalogue so that a vault can refuse it from an app by name.
public struct ConnectionNotifyRevokeRequest: VaultRequestPayload {
    public static let handler = VaultHandler.connectionNotifyRevoke
    public typealias Result = ConnectionNotifyRevokeResult
    public var connectionID: String
    public var reason: String?

    public init(connectionID: String, reason: String? = nil) {
        self.connectionID = connectionID
        self.reason = reason
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        (connectionID, reason) = try RevocationNotice.decode(payload, Self.handler.rawValue)
    }

    public var payload: JSONObject { RevocationNotice.encode(connectionID, reason) }
}

/// `{connection_id, reason?}`: what a vault tells its peer (`connection.notify-revoke`) and the peer's app hears
/// (`connection-revoked`).
enum RevocationNotice {
    static func decode(_ payload: JSONObject, _ context: String) throws(VaultProtocolError) -> (String, String?) {
        let fields = try VaultFields(payload, context, allowed: ["connection_id", "reason"])
        return (try fields.token("connection_id"), try fields.optionalKey("reason"))
    }

    static func encode(_ connectionID: String, _ reason: String?) -> JSONObject {
        var json: JSONObject = ["connection_id": .string(connectionID)]
        if let reason { json["reason"] = .string(reason) }
        return json
    }
}

public struct ConnectionNotifyRevokeResult: VaultResultPayload {
    public var connectionID: String

    public init(connectionID: String) { self.connectionID = connectionID }

    public init(result: JSONObject) throws(VaultProtocolError) {
        connectionID = try VaultFields(result, "notify-revoke result", allowed: ["connection_id"]).token("connection_id")
    }

    public var result: JSONObject { ["connection_id": .string(connectionID)] }
}

enum ConnectionPayloadField {
    static func status(_ fields: VaultFields) throws(VaultProtocolError) -> ConnectionStatus {
        guard let status = ConnectionStatus(rawValue: try fields.key("status")) else {
            throw .malformed("\(fields.context).status must be pending, active or revoked")
        }
        return status
    }
}
