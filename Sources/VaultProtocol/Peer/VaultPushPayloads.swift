import TesseraJOSE

/// The payload of a vault → app push (`OwnerSpace.{guid}.forApp.{notification}`), which travels as a
/// `VaultEventMessage` of type `notification.rawValue` inside an envelope.
public protocol VaultPushPayload: Sendable, Equatable {
    static var notification: VaultNotification { get }
    init(payload: JSONObject) throws(VaultProtocolError)
    var payload: JSONObject { get }
}

extension VaultPushPayload {
    public func event(id: String, timestamp: Int64) -> VaultEventMessage {
        VaultEventMessage(id: id, type: Self.notification.rawValue, payload: payload, timestamp: timestamp)
    }
}

extension VaultNotification {
    public var payloadType: any VaultPushPayload.Type {
        switch self {
        case .newMessage: return NewMessagePush.self
        case .readReceipt: return ReadReceiptPush.self
        case .profileUpdate: return ProfileUpdatePush.self
        case .connectionRevoked: return ConnectionRevokedPush.self
        case .credentialsRotate: return CredentialsRotatePush.self
        }
    }
}

extension VaultEventMessage {
    /// The payload decoded as the push `T`; `malformed` when the event is another push.
    public func push<T: VaultPushPayload>(_ type: T.Type) throws(VaultProtocolError) -> T {
        guard self.type == T.notification.rawValue else { throw .malformed("event.type is not \(T.notification.rawValue)") }
        return try T(payload: payload)
    }
}

/// `new-message {message_id, connection_id, content, content_type, sent_at}`.
public struct NewMessagePush: VaultPushPayload {
    public static let notification = VaultNotification.newMessage
    public var messageID: String
    public var connectionID: String
    public var content: String
    public var contentType: String
    public var sentAt: Int64

    public init(messageID: String, connectionID: String, content: String, contentType: String, sentAt: Int64) {
        self.messageID = messageID
        self.connectionID = connectionID
        self.content = content
        self.contentType = contentType
        self.sentAt = sentAt
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.notification.rawValue, allowed: ["message_id", "connection_id", "content", "content_type", "sent_at"])
        messageID = try fields.key("message_id")
        connectionID = try fields.token("connection_id")
        content = try fields.text("content")
        contentType = try fields.key("content_type")
        sentAt = try fields.integer("sent_at")
    }

    public var payload: JSONObject {
        [
            "message_id": .string(messageID), "connection_id": .string(connectionID), "content": .string(content),
            "content_type": .string(contentType), "sent_at": .integer(sentAt),
        ]
    }
}

/// `read-receipt {message_id, connection_id, read_at}`.
public struct ReadReceiptPush: VaultPushPayload {
    public static let notification = VaultNotification.readReceipt
    public var messageID: String
    public var connectionID: String
    public var readAt: Int64

    public init(messageID: String, connectionID: String, readAt: Int64) {
        self.messageID = messageID
        self.connectionID = connectionID
        self.readAt = readAt
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.notification.rawValue, allowed: ["message_id", "connection_id", "read_at"])
        messageID = try fields.key("message_id")
        connectionID = try fields.token("connection_id")
        readAt = try fields.integer("read_at")
    }

    public var payload: JSONObject { ["message_id": .string(messageID), "connection_id": .string(connectionID), "read_at": .integer(readAt)] }
}

/// `profile-update {connection_id, profile}`: a peer broadcast its profile.
public struct ProfileUpdatePush: VaultPushPayload {
    public static let notification = VaultNotification.profileUpdate
    public var connectionID: String
    public var profile: [String: String]

    public init(connectionID: String, profile: [String: String]) {
        self.connectionID = connectionID
        self.profile = profile
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.notification.rawValue, allowed: ["connection_id", "profile"])
        connectionID = try fields.token("connection_id")
        profile = try fields.stringMap("profile")
    }

    public var payload: JSONObject { ["connection_id": .string(connectionID), "profile": VaultJSON.stringMap(profile)] }
}

/// `connection-revoked {connection_id, reason?}`: the peer revoked the connection.
public struct ConnectionRevokedPush: VaultPushPayload {
    public static let notification = VaultNotification.connectionRevoked
    public var connectionID: String
    public var reason: String?

    public init(connectionID: String, reason: String? = nil) {
        self.connectionID = connectionID
        self.reason = reason
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        (connectionID, reason) = try RevocationNotice.decode(payload, Self.notification.rawValue)
    }

    public var payload: JSONObject { RevocationNotice.encode(connectionID, reason) }
}

/// `credentials.rotate {credentials (sealed), expires_at, credential_id}`: the vault replaced the app's NATS creds
/// (sealed like the bootstrap reply's, AAD `"app-vault-v1|bootstrap|" + session_id`).
public struct CredentialsRotatePush: VaultPushPayload {
    public static let notification = VaultNotification.credentialsRotate
    public var credentials: SealedCredentials
    public var expiresAt: Int64
    public var credentialID: String

    public init(credentials: SealedCredentials, expiresAt: Int64, credentialID: String) {
        self.credentials = credentials
        self.expiresAt = expiresAt
        self.credentialID = credentialID
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.notification.rawValue, allowed: ["credentials", "expires_at", "credential_id"])
        credentials = try SealedCredentials(json: fields.object("credentials"))
        expiresAt = try fields.integer("expires_at")
        credentialID = try fields.key("credential_id")
    }

    public var payload: JSONObject {
        ["credentials": .object(credentials.json), "expires_at": .integer(expiresAt), "credential_id": .string(credentialID)]
    }
}
