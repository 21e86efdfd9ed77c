import Crypto
import Foundation
import TesseraCore
import TesseraJOSE

/// What one vault sends another on `MessageSpace.{recipient}.forOwner.{kind}`.
public enum PeerMessageKind: String, Sendable, CaseIterable {
    case message
    case readReceipt = "read-receipt"
    case profile
    case connectionAccept = "connection.accept"
    case connectionRevoke = "connection.revoke"
    case connectionRotate = "connection.rotate"

    /// Accept and rotate carry the sender's (new) connection key in the clear, next to the envelope.
    public var carriesConnectionKey: Bool { self == .connectionAccept || self == .connectionRotate }
}

/// A vault → vault message: `{kind, connection_id, sender_guid, sender_connection_key?, envelope}`. The envelope
/// (direction `vault-to-vault`, session_id = connection_id, AAD subject = the subject it is published on) holds the
/// JSON of the kind's body (`PeerMessageBody`). `sender_connection_key` is present exactly on `connection.accept`
/// (the accepter's key, from which the inviter derives the connection key that opens this envelope) and
/// `connection.rotate` (the sender's next key; this envelope is still under the current one).
public struct PeerMessage: Sendable, Equatable {
    public var kind: PeerMessageKind
    public var connectionID: String
    public var senderGUID: String
    public var envelope: VaultEnvelope
    /// X25519, raw 32 bytes.
    public var senderConnectionKey: Data?

    public init(kind: PeerMessageKind, connectionID: String, senderGUID: String, envelope: VaultEnvelope, senderConnectionKey: Data? = nil) {
        self.kind = kind
        self.connectionID = connectionID
        self.senderGUID = senderGUID
        self.envelope = envelope
        self.senderConnectionKey = senderConnectionKey
    }

    public init(json: Data) throws(VaultProtocolError) {
        let object = try VaultFields.parse(json, limit: VaultLimits.maxMessageBytes, "peer message")
        let fields = try VaultFields(object, "peer message", allowed: ["kind", "connection_id", "sender_guid", "sender_connection_key", "envelope"])
        guard let kind = PeerMessageKind(rawValue: try fields.key("kind")) else { throw .malformed("peer message.kind is not a known kind") }
        self.kind = kind
        connectionID = try fields.token("connection_id")
        senderGUID = try fields.guid("sender_guid")
        envelope = try VaultEnvelope(object: fields.object("envelope"))
        if kind.carriesConnectionKey {
            senderConnectionKey = try fields.x25519Key("sender_connection_key")
        } else {
            guard !fields.has("sender_connection_key") else { throw .malformed("peer message.sender_connection_key is only sent on accept and rotate") }
            senderConnectionKey = nil
        }
        guard envelope.sessionID == connectionID else { throw .malformed("peer message: the envelope's session_id is not the connection_id") }
    }

    public var json: JSONObject {
        var json: JSONObject = ["kind": .string(kind.rawValue), "connection_id": .string(connectionID), "sender_guid": .string(senderGUID)]
        if let senderConnectionKey { json["sender_connection_key"] = VaultJSON.bytes(senderConnectionKey) }
        json["envelope"] = .object(envelope.json)
        return json
    }

    public func encoded() -> Data { json.serialized() }

    /// Seals `body` for the peer: `subject` is where it is published, `VaultSubjects.peer(recipientGUID, kind:)`.
    public static func seal<Body: PeerMessageBody>(
        _ body: Body, key: SymmetricKey, connectionID: String, senderGUID: String, senderConnectionKey: Data? = nil, seq: UInt64,
        subject: String, random: some RandomSource
    ) throws(VaultProtocolError) -> PeerMessage {
        let envelope = try VaultEnvelope.seal(
            body.json.serialized(), key: key, direction: .vaultToVault, sessionID: connectionID, seq: seq, subject: subject, random: random)
        return PeerMessage(kind: Body.kind, connectionID: connectionID, senderGUID: senderGUID, envelope: envelope, senderConnectionKey: senderConnectionKey)
    }

    /// Opens the envelope (received on `subject`) and decodes the body of this message's kind.
    public func open<Body: PeerMessageBody>(_ type: Body.Type, key: SymmetricKey, subject: String) throws(VaultProtocolError) -> Body {
        guard kind == Body.kind else { throw .malformed("peer message is a \(kind.rawValue), not a \(Body.kind.rawValue)") }
        let plaintext = try envelope.open(key: key, direction: .vaultToVault, subject: subject)
        return try Body(json: VaultFields.parse(plaintext, limit: VaultLimits.maxMessageBytes, "peer message body"))
    }
}

/// The plaintext of a peer envelope, one type per `PeerMessageKind`.
public protocol PeerMessageBody: Sendable, Equatable {
    static var kind: PeerMessageKind { get }
    init(json: JSONObject) throws(VaultProtocolError)
    var json: JSONObject { get }
}

extension PeerMessageKind {
    public var bodyType: any PeerMessageBody.Type {
        switch self {
        case .message: return PeerTextMessage.self
        case .readReceipt: return PeerReadReceipt.self
        case .profile: return PeerProfile.self
        case .connectionAccept: return PeerConnectionAccept.self
        case .connectionRevoke: return PeerConnectionRevoke.self
        case .connectionRotate: return PeerConnectionRotate.self
        }
    }
}

/// `message`: `{message_id, content, content_type, sent_at}`.
public struct PeerTextMessage: PeerMessageBody {
    public static let kind = PeerMessageKind.message
    public var messageID: String
    public var content: String
    public var contentType: String
    public var sentAt: Int64

    public init(messageID: String, content: String, contentType: String, sentAt: Int64) {
        self.messageID = messageID
        self.content = content
        self.contentType = contentType
        self.sentAt = sentAt
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "peer message body", allowed: ["message_id", "content", "content_type", "sent_at"])
        messageID = try fields.key("message_id")
        content = try fields.text("content")
        contentType = try fields.key("content_type")
        sentAt = try fields.integer("sent_at")
    }

    public var json: JSONObject {
        ["message_id": .string(messageID), "content": .string(content), "content_type": .string(contentType), "sent_at": .integer(sentAt)]
    }
}

/// `read-receipt`: `{message_id, read_at}`.
public struct PeerReadReceipt: PeerMessageBody {
    public static let kind = PeerMessageKind.readReceipt
    public var messageID: String
    public var readAt: Int64

    public init(messageID: String, readAt: Int64) {
        self.messageID = messageID
        self.readAt = readAt
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "peer read-receipt", allowed: ["message_id", "read_at"])
        messageID = try fields.key("message_id")
        readAt = try fields.integer("read_at")
    }

    public var json: JSONObject { ["message_id": .string(messageID), "read_at": .integer(readAt)] }
}

/// `profile`: `{profile, version}`, what `profile.broadcast` shares.
public struct PeerProfile: PeerMessageBody {
    public static let kind = PeerMessageKind.profile
    public var profile: [String: String]
    public var version: Int64

    public init(profile: [String: String], version: Int64) {
        self.profile = profile
        self.version = version
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "peer profile", allowed: ["profile", "version"])
        profile = try fields.stringMap("profile")
        version = try fields.integer("version")
    }

    public var json: JSONObject { ["profile": VaultJSON.stringMap(profile), "version": .integer(version)] }
}

/// `connection.accept`: `{credentials, accepter_guid}`, creds for publishing to the accepter's MessageSpace.
public struct PeerConnectionAccept: PeerMessageBody {
    public static let kind = PeerMessageKind.connectionAccept
    public var credentials: String
    public var accepterGUID: String

    public init(credentials: String, accepterGUID: String) {
        self.credentials = credentials
        self.accepterGUID = accepterGUID
    }

    public init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "peer connection.accept", allowed: ["credentials", "accepter_guid"])
        credentials = try fields.string("credentials", max: ConnectionInvite.maxCredentialsBytes)
        accepterGUID = try fields.guid("accepter_guid")
    }

    public var json: JSONObject { ["credentials": .string(credentials), "accepter_guid": .string(accepterGUID)] }
}

/// `connection.revoke`: `{reason?}`; the sender has already revoked the creds it issued.
public struct PeerConnectionRevoke: PeerMessageBody {
    public static let kind = PeerMessageKind.connectionRevoke
    public var reason: String?

    public init(reason: String? = nil) { self.reason = reason }

    public init(json: JSONObject) throws(VaultProtocolError) {
        reason = try VaultFields(json, "peer connection.revoke", allowed: ["reason"]).optionalKey("reason")
    }

    public var json: JSONObject {
        var json = JSONObject()
        if let reason { json["reason"] = .string(reason) }
        return json
    }
}

/// `connection.rotate`: `{credentials?}`, new creds for publishing to the sender's MessageSpace, when they changed.
public struct PeerConnectionRotate: PeerMessageBody {
    public static let kind = PeerMessageKind.connectionRotate
    public var credentials: String?

    public init(credentials: String? = nil) { self.credentials = credentials }

    public init(json: JSONObject) throws(VaultProtocolError) {
        credentials = try VaultFields(json, "peer connection.rotate", allowed: ["credentials"])
            .optionalString("credentials", max: ConnectionInvite.maxCredentialsBytes)
    }

    public var json: JSONObject {
        var json = JSONObject()
        if let credentials { json["credentials"] = .string(credentials) }
        return json
    }
}
