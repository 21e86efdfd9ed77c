import TesseraJOSE

// profile.*: the user's profile, string fields by name (`name`, `email` …), versioned; shared with connections by
// `profile.broadcast`.

/// A request whose whole payload is `{fields?}`: the profile fields it is about (every field without it).
public protocol ProfileFieldSelection: VaultRequestPayload {
    var fields: [String]? { get }
    init(fields: [String]?)
}

extension ProfileFieldSelection {
    public init(payload: JSONObject) throws(VaultProtocolError) {
        self.init(fields: try VaultFields(payload, Self.handler.rawValue, allowed: ["fields"]).optionalKeyList("fields"))
    }

    public var payload: JSONObject {
        var json = JSONObject()
        if let fields { json["fields"] = VaultJSON.keyList(fields) }
        return json
    }
}

/// `profile.get {fields?}` → `ProfileGetResult`; without `fields`, every field.
public struct ProfileGetRequest: ProfileFieldSelection {
    public static let handler = VaultHandler.profileGet
    public typealias Result = ProfileGetResult
    public var fields: [String]?

    public init(fields: [String]? = nil) { self.fields = fields }
}

/// `{profile {name: string}, version}`.
public struct ProfileGetResult: VaultResultPayload {
    public var profile: [String: String]
    public var version: Int64

    public init(profile: [String: String], version: Int64) {
        self.profile = profile
        self.version = version
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "profile get result", allowed: ["profile", "version"])
        profile = try fields.stringMap("profile")
        version = try fields.integer("version")
    }

    public var result: JSONObject { ["profile": VaultJSON.stringMap(profile), "version": .integer(version)] }
}

/// `profile.update {set?, remove?}` → `ProfileUpdateResult`. A field may not be both set and removed.
public struct ProfileUpdateRequest: VaultRequestPayload {
    public static let handler = VaultHandler.profileUpdate
    public typealias Result = ProfileUpdateResult
    public var set: [String: String]?
    public var remove: [String]?

    public init(set: [String: String]? = nil, remove: [String]? = nil) {
        self.set = set
        self.remove = remove
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["set", "remove"])
        set = try fields.optionalStringMap("set")
        remove = try fields.optionalKeyList("remove")
        if let set, let remove, remove.contains(where: { set[$0] != nil }) {
            throw .malformed("profile.update: a field is both set and removed")
        }
    }

    public var payload: JSONObject {
        var json = JSONObject()
        if let set { json["set"] = VaultJSON.stringMap(set) }
        if let remove { json["remove"] = VaultJSON.keyList(remove) }
        return json
    }
}

/// `{version}`: the profile's version after the update.
public struct ProfileUpdateResult: VaultResultPayload {
    public var version: Int64

    public init(version: Int64) { self.version = version }

    public init(result: JSONObject) throws(VaultProtocolError) {
        version = try VaultFields(result, "profile update result", allowed: ["version"]).integer("version")
    }

    public var result: JSONObject { ["version": .integer(version)] }
}

/// `profile.delete {}` → `ProfileDeleteResult`.
public struct ProfileDeleteRequest: VaultRequestPayload {
    public static let handler = VaultHandler.profileDelete
    public typealias Result = ProfileDeleteResult

    public init() {}

    public init(payload: JSONObject) throws(VaultProtocolError) {
        _ = try VaultFields(payload, Self.handler.rawValue, allowed: [])
    }

    public var payload: JSONObject { JSONObject() }
}

/// `{deleted}`: false when there was no profile.
public struct ProfileDeleteResult: VaultResultPayload {
    public var deleted: Bool

    public init(deleted: Bool) { self.deleted = deleted }

    public init(result: JSONObject) throws(VaultProtocolError) {
        deleted = try VaultFields(result, "profile delete result", allowed: ["deleted"]).bool("deleted")
    }

    public var result: JSONObject { ["deleted": .bool(deleted)] }
}

/// `profile.broadcast {fields?}` → `ProfileBroadcastResult`: sends the profile (or these fields of it) to every
/// active connection as a `profile` peer message.
public struct ProfileBroadcastRequest: ProfileFieldSelection {
    public static let handler = VaultHandler.profileBroadcast
    public typealias Result = ProfileBroadcastResult
    public var fields: [String]?

    public init(fields: [String]? = nil) { self.fields = fields }
}

/// `{sent_to}`: how many connections it was sent to.
public struct ProfileBroadcastResult: VaultResultPayload {
    public var sentTo: Int

    public init(sentTo: Int) { self.sentTo = sentTo }

    public init(result: JSONObject) throws(VaultProtocolError) {
        sentTo = Int(clamping: try VaultFields(result, "profile broadcast result", allowed: ["sent_to"]).integer("sent_to"))
    }

    public var result: JSONObject { ["sent_to": .integer(Int64(sentTo))] }
}
