import TesseraJOSE

// message.*: text between connected users, carried vault → vault as `message` / `read-receipt` peer messages.

/// `message.send {connection_id, content (≤ 64 KiB), content_type? (default text/plain), message_id?}` →
/// `MessageSendResult`. The app may choose `message_id`, so that a retry after a lost reply is recognised and not
/// sent twice.
public struct MessageSendRequest: VaultRequestPayload {
    public static let handler = VaultHandler.messageSend
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
