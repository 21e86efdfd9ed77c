import TesseraJOSE

// secrets.datastore.*: the user's secrets, each a string value under a key, versioned.

/// `secrets.datastore.add {key, value, metadata?}` → `DatastoreWriteResult`.
public struct DatastoreAddRequest: VaultRequestPayload {
    public static let handler = VaultHandler.datastoreAdd
    public typealias Result = DatastoreWriteResult
    public var key: String
    public var value: String
    public var metadata: [String: String]?

    public init(key: String, value: String, metadata: [String: String]? = nil) {
        self.key = key
        self.value = value
        self.metadata = metadata
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["key", "value", "metadata"])
        key = try fields.key("key")
        value = try fields.text("value")
        metadata = try fields.optionalStringMap("metadata")
    }

    public var payload: JSONObject {
        var json: JSONObject = ["key": .string(key), "value": .string(value)]
        if let metadata { json["metadata"] = VaultJSON.stringMap(metadata) }
        return json
    }
}

/// `secrets.datastore.update {key, value, expected_version?}` → `DatastoreWriteResult`. With `expected_version`
/// the write happens only if the stored version is that one (optimistic concurrency).
public struct DatastoreUpdateRequest: VaultRequestPayload {
    public static let handler = VaultHandler.datastoreUpdate
    public typealias Result = DatastoreWriteResult
    public var key: String
    public var value: String
    public var expectedVersion: Int64?

    public init(key: String, value: String, expectedVersion: Int64? = nil) {
        self.key = key
        self.value = value
        self.expectedVersion = expectedVersion
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["key", "value", "expected_version"])
        key = try fields.key("key")
        value = try fields.text("value")
        expectedVersion = try fields.optionalInteger("expected_version")
    }

    public var payload: JSONObject {
        var json: JSONObject = ["key": .string(key), "value": .string(value)]
        if let expectedVersion { json["expected_version"] = .integer(expectedVersion) }
        return json
    }
}

/// `{key, version}`: the result of `add` and `update`.
public struct DatastoreWriteResult: VaultResultPayload {
    public var key: String
    public var version: Int64

    public init(key: String, version: Int64) {
        self.key = key
        self.version = version
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "datastore write result", allowed: ["key", "version"])
        key = try fields.key("key")
        version = try fields.integer("version")
    }

    public var result: JSONObject { ["key": .string(key), "version": .integer(version)] }
}

/// `secrets.datastore.retrieve {key}` → `DatastoreRetrieveResult`.
public struct DatastoreRetrieveRequest: VaultRequestPayload {
    public static let handler = VaultHandler.datastoreRetrieve
    public typealias Result = DatastoreRetrieveResult
    public var key: String

    public init(key: String) { self.key = key }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        key = try VaultFields(payload, Self.handler.rawValue, allowed: ["key"]).key("key")
    }

    public var payload: JSONObject { ["key": .string(key)] }
}

/// `{key, value, metadata?, version, updated_at}`.
public struct DatastoreRetrieveResult: VaultResultPayload {
    public var key: String
    public var value: String
    public var metadata: [String: String]?
    public var version: Int64
    public var updatedAt: Int64

    public init(key: String, value: String, metadata: [String: String]? = nil, version: Int64, updatedAt: Int64) {
        self.key = key
        self.value = value
        self.metadata = metadata
        self.version = version
        self.updatedAt = updatedAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "datastore retrieve result", allowed: ["key", "value", "metadata", "version", "updated_at"])
        key = try fields.key("key")
        value = try fields.text("value")
        metadata = try fields.optionalStringMap("metadata")
        version = try fields.integer("version")
        updatedAt = try fields.integer("updated_at")
    }

    public var result: JSONObject {
        var json: JSONObject = ["key": .string(key), "value": .string(value)]
        if let metadata { json["metadata"] = VaultJSON.stringMap(metadata) }
        json["version"] = .integer(version)
        json["updated_at"] = .integer(updatedAt)
        return json
    }
}

/// `secrets.datastore.delete {key}` → `DatastoreDeleteResult`.
public struct DatastoreDeleteRequest: VaultRequestPayload {
    public static let handler = VaultHandler.datastoreDelete
    public typealias Result = DatastoreDeleteResult
    public var key: String

    public init(key: String) { self.key = key }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        key = try VaultFields(payload, Self.handler.rawValue, allowed: ["key"]).key("key")
    }

    public var payload: JSONObject { ["key": .string(key)] }
}

/// `{key, deleted}`: `deleted` is false when there was nothing under the key.
public struct DatastoreDeleteResult: VaultResultPayload {
    public var key: String
    public var deleted: Bool

    public init(key: String, deleted: Bool) {
        self.key = key
        self.deleted = deleted
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "datastore delete result", allowed: ["key", "deleted"])
        key = try fields.key("key")
        deleted = try fields.bool("deleted")
    }

    public var result: JSONObject { ["key": .string(key), "deleted": .bool(deleted)] }
}

/// `secrets.datastore.list {prefix?, limit? (1…1000, default 100), cursor?}` → `DatastoreListResult`.
public struct DatastoreListRequest: VaultRequestPayload {
    public static let handler = VaultHandler.datastoreList
    public typealias Result = DatastoreListResult
    public static let defaultLimit = 100
    public var prefix: String?
    public var limit: Int
    /// The `next_cursor` of the previous page.
    public var cursor: String?

    public init(prefix: String? = nil, limit: Int = Self.defaultLimit, cursor: String? = nil) {
        self.prefix = prefix
        self.limit = limit
        self.cursor = cursor
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["prefix", "limit", "cursor"])
        prefix = try fields.optionalString("prefix", max: VaultLimits.maxKeyBytes, allowEmpty: true)
        limit = Int(clamping: try fields.optionalInteger("limit", in: 1...Int64(VaultLimits.maxListCount)) ?? Int64(Self.defaultLimit))
        cursor = try fields.optionalKey("cursor")
    }

    public var payload: JSONObject {
        var json: JSONObject = [:]
        if let prefix { json["prefix"] = .string(prefix) }
        json["limit"] = .integer(Int64(limit))
        if let cursor { json["cursor"] = .string(cursor) }
        return json
    }
}

/// One entry of `DatastoreListResult`: `{key, version, updated_at}` (no value).
public struct DatastoreListItem: Sendable, Equatable {
    public var key: String
    public var version: Int64
    public var updatedAt: Int64

    public init(key: String, version: Int64, updatedAt: Int64) {
        self.key = key
        self.version = version
        self.updatedAt = updatedAt
    }

    init(json: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(json, "datastore list item", allowed: ["key", "version", "updated_at"])
        key = try fields.key("key")
        version = try fields.integer("version")
        updatedAt = try fields.integer("updated_at")
    }

    var json: JSONObject { ["key": .string(key), "version": .integer(version), "updated_at": .integer(updatedAt)] }
}

/// `{items, next_cursor?}`: `next_cursor` is present when there are more.
public struct DatastoreListResult: VaultResultPayload {
    public var items: [DatastoreListItem]
    public var nextCursor: String?

    public init(items: [DatastoreListItem], nextCursor: String? = nil) {
        self.items = items
        self.nextCursor = nextCursor
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "datastore list result", allowed: ["items", "next_cursor"])
        items = try fields.list("items", DatastoreListItem.init(json:))
        nextCursor = try fields.optionalKey("next_cursor")
    }

    public var result: JSONObject {
        var json: JSONObject = ["items": .array(items.map { .object($0.json) })]
        if let nextCursor { json["next_cursor"] = .string(nextCursor) }
        return json
    }
}
