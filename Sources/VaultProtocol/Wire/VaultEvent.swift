import Foundation
import TesseraJOSE

/// An app → vault command or a vault → app push: `{id, type, payload, timestamp}` (vault-design.md, "Wire formats").
/// Inside an envelope, except `app.bootstrap`, which travels in the clear.
public struct VaultEventMessage: Sendable, Equatable {
    /// One subject token (the reply goes to `…forApp.{type}.{id}`), a UUID in practice.
    public var id: String
    /// The handler (`secrets.datastore.add`) or notification (`new-message`) name.
    public var type: String
    public var payload: JSONObject
    /// Unix seconds.
    public var timestamp: Int64

    public init(id: String, type: String, payload: JSONObject, timestamp: Int64) {
        self.id = id
        self.type = type
        self.payload = payload
        self.timestamp = timestamp
    }

    public init(json: Data) throws(VaultProtocolError) {
        try self.init(object: VaultFields.parse(json, limit: VaultLimits.maxMessageBytes, "event message"))
    }

    init(object: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(object, "event", allowed: ["id", "type", "payload", "timestamp"])
        id = try fields.token("id")
        type = try fields.string("type", max: VaultLimits.maxKeyBytes)
        guard VaultToken.isType(type) else { throw .malformed("event.type must be dot-separated tokens") }
        payload = try fields.object("payload")
        timestamp = try fields.integer("timestamp")
    }

    public var json: JSONObject {
        ["id": .string(id), "type": .string(type), "payload": .object(payload), "timestamp": .integer(timestamp)]
    }

    public func encoded() -> Data { json.serialized() }
}

/// `{code, message}` of a failed event. `message` is for people; `code` is what programs match on.
public struct VaultEventError: Sendable, Equatable, Error {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    init(object: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(object, "error", allowed: ["code", "message"])
        code = try fields.key("code")
        message = try fields.text("message")
    }

    public var json: JSONObject { ["code": .string(code), "message": .string(message)] }
}

/// The vault's answer to event `event_id`: `{event_id, success, timestamp, result?, error?}`. A success carries no
/// `error`, a failure carries `error` and no `result`.
public struct VaultEventResponse: Sendable, Equatable {
    public var eventID: String
    public var success: Bool
    public var timestamp: Int64
    public var result: JSONObject?
    public var error: VaultEventError?

    public static func success(eventID: String, result: JSONObject?, timestamp: Int64) -> Self {
        Self(eventID: eventID, success: true, timestamp: timestamp, result: result, error: nil)
    }

    public static func failure(eventID: String, error: VaultEventError, timestamp: Int64) -> Self {
        Self(eventID: eventID, success: false, timestamp: timestamp, result: nil, error: error)
    }

    private init(eventID: String, success: Bool, timestamp: Int64, result: JSONObject?, error: VaultEventError?) {
        self.eventID = eventID
        self.success = success
        self.timestamp = timestamp
        self.result = result
        self.error = error
    }

    public init(json: Data) throws(VaultProtocolError) {
        try self.init(object: VaultFields.parse(json, limit: VaultLimits.maxMessageBytes, "event response"))
    }

    init(object: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(object, "response", allowed: ["event_id", "success", "timestamp", "result", "error"])
        eventID = try fields.token("event_id")
        success = try fields.bool("success")
        timestamp = try fields.integer("timestamp")
        result = fields.has("result") ? try fields.object("result") : nil
        error = fields.has("error") ? try VaultEventError(object: fields.object("error")) : nil
        if success, error != nil { throw .malformed("response: a success carries no error") }
        if !success, error == nil || result != nil { throw .malformed("response: a failure carries an error and no result") }
    }

    public var json: JSONObject {
        var json: JSONObject = ["event_id": .string(eventID), "success": .bool(success), "timestamp": .integer(timestamp)]
        if let result { json["result"] = .object(result) }
        if let error { json["error"] = .object(error.json) }
        return json
    }

    public func encoded() -> Data { json.serialized() }
}

/// The plaintext of an envelope, either kind: a response has `event_id`, a message has `id` and `type`.
public enum VaultPlaintext: Sendable, Equatable {
    case message(VaultEventMessage)
    case response(VaultEventResponse)

    public init(json: Data) throws(VaultProtocolError) {
        let object = try VaultFields.parse(json, limit: VaultLimits.maxMessageBytes, "plaintext")
        if object.contains("event_id") {
            self = .response(try VaultEventResponse(object: object))
        } else {
            self = .message(try VaultEventMessage(object: object))
        }
    }

    public func encoded() -> Data {
        switch self {
        case .message(let message): return message.encoded()
        case .response(let response): return response.encoded()
        }
    }
}
