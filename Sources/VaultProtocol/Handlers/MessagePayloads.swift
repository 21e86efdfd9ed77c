import TesseraJOSE

// message.*: text between connected users, carried vault → vault as `message` / `read-receipt` peer messages.

/// `message.send {connection_id, content (≤ 64 KiB), content_type? (default text/plain), message_id?}` →
/// `MessageSendResult`. The app may choose `message_id`, so that a retry after a lost reply is recognised and not
/// sent twice.
public struct MessageSendRequest: VaultRequestPayload {
    public static let handler = VaultHandler.messageSend
    public typealias Result = MessageSendResult
    public static let defaultContentType = "text/plain"
    public var connectionID: String
    public var content: String
    public var contentType: String
    public var messageID: String?

    public init(connectionID: String, content: String, contentType: String = Self.defaultContentType, messageID: String? = nil) {
        self.connectionID = connectionID
        self.content = content
        self.contentType = contentType
        self.messageID = messageID
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["connection_id", "content", "content_type", "message_id"])
        connectionID = try fields.token("connection_id")
        content = try fields.text("content")
        contentType = try fields.optionalKey("content_type") ?? Self.defaultContentType
        messageID = try fields.optionalKey("message_id")
    }

    public var payload: JSONObject {
        var json: JSONObject = ["connection_id": .string(connectionID), "content": .string(content), "content_type": .string(contentType)]
        if let messageID { json["message_id"] = .string(messageID) }
        return json
    }
}

/// `{message_id, sent_at, delivered}`: `delivered` is true when the peer's bus took the message.
public struct MessageSendResult: VaultResultPayload {
    public var messageID: String
    public var sentAt: Int64
    public var delivered: Bool

    public init(messageID: String, sentAt: Int64, delivered: Bool) {
        self.messageID = messageID
        self.sentAt = sentAt
        self.delivered = delivered
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "message send result", allowed: ["message_id", "sent_at", "delivered"])
        messageID = try fields.key("message_id")
        sentAt = try fields.integer("sent_at")
        delivered = try fields.bool("delivered")
    }

    public var result: JSONObject { ["message_id": .string(messageID), "sent_at": .integer(sentAt), "delivered": .bool(delivered)] }
}

/// `message.read-receipt {connection_id, message_id}` → `MessageReadReceiptResult`: tell the sender it was read.
public struct MessageReadReceiptRequest: VaultRequestPayload {
    public static let handler = VaultHandler.messageReadReceipt
    public typealias Result = MessageReadReceiptResult
    public var connectionID: String
    public var messageID: String

    public init(connectionID: String, messageID: String) {
        self.connectionID = connectionID
        self.messageID = messageID
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["connection_id", "message_id"])
        connectionID = try fields.token("connection_id")
        messageID = try fields.key("message_id")
    }

    public var payload: JSONObject { ["connection_id": .string(connectionID), "message_id": .string(messageID)] }
}

public struct MessageReadReceiptResult: VaultResultPayload {
    public var messageID: String
    public var readAt: Int64

    public init(messageID: String, readAt: Int64) {
        self.messageID = messageID
        self.readAt = readAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "read-receipt result", allowed: ["message_id", "read_at"])
        messageID = try fields.key("message_id")
        readAt = try fields.integer("read_at")
    }

    public var result: JSONObject { ["message_id": .string(messageID), "read_at": .integer(readAt)] }
}

/// `message.list {connection_id?, direction? ("in" | "out"), unread_only?, offset?, limit? (1…500, default 100)}` →
/// `MessageListResult`: the messages the vault stored, oldest first. Pushes are sent once; this is how an app that
/// was offline (or lost a push) reads what its vault acknowledged.
public struct MessageListRequest: VaultRequestPayload {
    public static let handler = VaultHandler.messageList
    public typealias Result = MessageListResult
    public static let defaultLimit: Int64 = 100
    public static let maxLimit: Int64 = 500
    public enum Direction: String, Sendable { case incoming = "in", outgoing = "out" }

    public var connectionID: String?
    public var direction: Direction?
    public var unreadOnly: Bool
    public var offset: Int64
    public var limit: Int64

    public init(connectionID: String? = nil, direction: Direction? = nil, unreadOnly: Bool = false, offset: Int64 = 0, limit: Int64 = Self.defaultLimit) {
        self.connectionID = connectionID
        self.direction = direction
        self.unreadOnly = unreadOnly
        self.offset = offset
        self.limit = limit
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            payload, Self.handler.rawValue, allowed: ["connection_id", "direction", "unread_only", "offset", "limit"])
        connectionID = fields.has("connection_id") ? try fields.token("connection_id") : nil
        if let raw = try fields.optionalKey("direction") {
            guard let direction = Direction(rawValue: raw) else { throw .malformed("message.list.direction is not \"in\" or \"out\"") }
            self.direction = direction
        } else {
            direction = nil
        }
        unreadOnly = fields.has("unread_only") ? try fields.bool("unread_only") : false
        offset = try fields.optionalInteger("offset") ?? 0
        limit = try fields.optionalInteger("limit", in: 1...Self.maxLimit) ?? Self.defaultLimit
    }

    public var payload: JSONObject {
        var json: JSONObject = ["unread_only": .bool(unreadOnly), "offset": .integer(offset), "limit": .integer(limit)]
        if let connectionID { json["connection_id"] = .string(connectionID) }
        if let direction { json["direction"] = .string(direction.rawValue) }
        return json
    }
}

/// One entry of `MessageListResult`: `{connection_id, message_id, direction, content, content_type, sent_at,
/// stored_at, delivered_at?, read_at?}` (`delivered_at` for sent messages the peer acknowledged).
public struct StoredMessageSummary: Sendable, Equatable {
    public var connectionID: String
    public var messageID: String
    public var direction: MessageListRequest.Direction
    public var content: String
    public var contentType: String
    public var sentAt: Int64
    public var storedAt: Int64
    public var deliveredAt: Int64?
    public var readAt: Int64?

    public init(
        connectionID: String, messageID: String, direction: MessageListRequest.Direction, content: String, contentType: String,
        sentAt: Int64, storedAt: Int64, deliveredAt: Int64? = nil, readAt: Int64? = nil
    ) {
        self.connectionID = connectionID
        self.messageID = messageID
        self.direction = direction
        self.content = content
        self.contentType = contentType
        self.sentAt = sentAt
        self.storedAt = storedAt
        self.deliveredAt = deliveredAt
        self.readAt = readAt
    }

    init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            json, "message",
            allowed: ["connection_id", "message_id", "direction", "content", "content_type", "sent_at", "stored_at", "delivered_at", "read_at"])
        connectionID = try fields.token("connection_id")
        messageID = try fields.key("message_id")
        guard let direction = MessageListRequest.Direction(rawValue: try fields.key("direction")) else {
            throw .malformed("message.direction is not \"in\" or \"out\"")
        }
        self.direction = direction
        content = try fields.text("content")
        contentType = try fields.key("content_type")
        sentAt = try fields.integer("sent_at")
        storedAt = try fields.integer("stored_at")
        deliveredAt = try fields.optionalInteger("delivered_at")
        readAt = try fields.optionalInteger("read_at")
    }

    var json: JSONObject {
        var json: JSONObject = [
            "connection_id": .string(connectionID), "message_id": .string(messageID), "direction": .string(direction.rawValue),
            "content": .string(content), "content_type": .string(contentType), "sent_at": .integer(sentAt), "stored_at": .integer(storedAt),
        ]
        if let deliveredAt { json["delivered_at"] = .integer(deliveredAt) }
        if let readAt { json["read_at"] = .integer(readAt) }
        return json
    }
}

/// `{messages, more}`: `more` is true when messages past `offset + limit` exist.
public struct MessageListResult: VaultResultPayload {
    public var messages: [StoredMessageSummary]
    public var more: Bool

    public init(messages: [StoredMessageSummary], more: Bool) {
        self.messages = messages
        self.more = more
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "message list result", allowed: ["messages", "more"])
        messages = try fields.list("messages", StoredMessageSummary.init(json:))
        more = try fields.bool("more")
    }

    public var result: JSONObject { ["messages": .array(messages.map { .object($0.json) }), "more": .bool(more)] }
}
