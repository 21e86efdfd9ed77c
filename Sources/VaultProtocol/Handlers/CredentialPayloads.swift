import TesseraJOSE

// credential.*: the wallet's credentials (an SD-JWT VC, an mdoc …) kept as opaque strings, versioned, so that a
// second device can `sync`. credentials.*: the app's own NATS creds.

/// `credential.store {credential_id?, format, credential, metadata?}` → `CredentialStoreResult`. Without
/// `credential_id` the vault chooses one; with it, the credential under that id is replaced.
public struct CredentialStoreRequest: VaultRequestPayload {
    public static let handler = VaultHandler.credentialStore
    public typealias Result = CredentialStoreResult
    public var credentialID: String?
    /// `dc+sd-jwt`, `mso_mdoc` …
    public var format: String
    public var credential: String
    public var metadata: [String: String]?

    public init(credentialID: String? = nil, format: String, credential: String, metadata: [String: String]? = nil) {
        self.credentialID = credentialID
        self.format = format
        self.credential = credential
        self.metadata = metadata
    }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["credential_id", "format", "credential", "metadata"])
        credentialID = try fields.optionalKey("credential_id")
        format = try fields.key("format")
        credential = try fields.string("credential", max: VaultLimits.maxValueBytes)
        metadata = try fields.optionalStringMap("metadata")
    }

    public var payload: JSONObject {
        var json = JSONObject()
        if let credentialID { json["credential_id"] = .string(credentialID) }
        json["format"] = .string(format)
        json["credential"] = .string(credential)
        if let metadata { json["metadata"] = VaultJSON.stringMap(metadata) }
        return json
    }
}

/// `{credential_id, version}`: `version` is the collection's version after the write (what `sync` counts from).
public struct CredentialStoreResult: VaultResultPayload {
    public var credentialID: String
    public var version: Int64

    public init(credentialID: String, version: Int64) {
        self.credentialID = credentialID
        self.version = version
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "credential store result", allowed: ["credential_id", "version"])
        credentialID = try fields.key("credential_id")
        version = try fields.integer("version")
    }

    public var result: JSONObject { ["credential_id": .string(credentialID), "version": .integer(version)] }
}

/// `credential.get {credential_id}` → `CredentialRecord`.
public struct CredentialGetRequest: VaultRequestPayload {
    public static let handler = VaultHandler.credentialGet
    public typealias Result = CredentialRecord
    public var credentialID: String

    public init(credentialID: String) { self.credentialID = credentialID }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        credentialID = try VaultFields(payload, Self.handler.rawValue, allowed: ["credential_id"]).key("credential_id")
    }

    public var payload: JSONObject { ["credential_id": .string(credentialID)] }
}

/// `{credential_id, format, credential, metadata?, version, updated_at}`: the result of `credential.get` and each
/// entry of `credential.sync`.
public struct CredentialRecord: VaultResultPayload {
    public var credentialID: String
    public var format: String
    public var credential: String
    public var metadata: [String: String]?
    public var version: Int64
    public var updatedAt: Int64

    public init(credentialID: String, format: String, credential: String, metadata: [String: String]? = nil, version: Int64, updatedAt: Int64) {
        self.credentialID = credentialID
        self.format = format
        self.credential = credential
        self.metadata = metadata
        self.version = version
        self.updatedAt = updatedAt
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(
            result, "credential", allowed: ["credential_id", "format", "credential", "metadata", "version", "updated_at"])
        credentialID = try fields.key("credential_id")
        format = try fields.key("format")
        credential = try fields.string("credential", max: VaultLimits.maxValueBytes)
        metadata = try fields.optionalStringMap("metadata")
        version = try fields.integer("version")
        updatedAt = try fields.integer("updated_at")
    }

    public var result: JSONObject {
        var json: JSONObject = ["credential_id": .string(credentialID), "format": .string(format), "credential": .string(credential)]
        if let metadata { json["metadata"] = VaultJSON.stringMap(metadata) }
        json["version"] = .integer(version)
        json["updated_at"] = .integer(updatedAt)
        return json
    }
}

/// `credential.sync {since_version}` → `CredentialSyncResult`: what changed after `since_version` (0: everything).
public struct CredentialSyncRequest: VaultRequestPayload {
    public static let handler = VaultHandler.credentialSync
    public typealias Result = CredentialSyncResult
    public var sinceVersion: Int64

    public init(sinceVersion: Int64) { self.sinceVersion = sinceVersion }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        sinceVersion = try VaultFields(payload, Self.handler.rawValue, allowed: ["since_version"]).integer("since_version")
    }

    public var payload: JSONObject { ["since_version": .integer(sinceVersion)] }
}

/// `{credentials, deleted, version}`: credentials written and ids deleted after `since_version`, and the current
/// version to sync from next time.
public struct CredentialSyncResult: VaultResultPayload {
    public var credentials: [CredentialRecord]
    public var deleted: [String]
    public var version: Int64

    public init(credentials: [CredentialRecord], deleted: [String], version: Int64) {
        self.credentials = credentials
        self.deleted = deleted
        self.version = version
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "credential sync result", allowed: ["credentials", "deleted", "version"])
        credentials = try fields.list("credentials", CredentialRecord.init(result:))
        deleted = try fields.keyList("deleted")
        version = try fields.integer("version")
    }

    public var result: JSONObject {
        ["credentials": .array(credentials.map { .object($0.result) }), "deleted": VaultJSON.keyList(deleted), "version": .integer(version)]
    }
}

/// `credential.version {}` → `CredentialVersionResult`: a cheap "anything new?" before `sync`.
public struct CredentialVersionRequest: VaultRequestPayload {
    public static let handler = VaultHandler.credentialVersion
    public typealias Result = CredentialVersionResult

    public init() {}

    public init(payload: JSONObject) throws(VaultProtocolError) {
        _ = try VaultFields(payload, Self.handler.rawValue, allowed: [])
    }

    public var payload: JSONObject { JSONObject() }
}

public struct CredentialVersionResult: VaultResultPayload {
    public var version: Int64

    public init(version: Int64) { self.version = version }

    public init(result: JSONObject) throws(VaultProtocolError) {
        version = try VaultFields(result, "credential version result", allowed: ["version"]).integer("version")
    }

    public var result: JSONObject { ["version": .integer(version)] }
}

/// `credentials.refresh {requested_ttl_hours?}` → `CredentialsRefreshResult`: new NATS creds for the app before
/// the old ones expire.
public struct CredentialsRefreshRequest: VaultRequestPayload {
    public static let handler = VaultHandler.credentialsRefresh
    public typealias Result = CredentialsRefreshResult
    /// 1…168; the vault's policy applies when absent.
    public var requestedTTLHours: Int?

    public init(requestedTTLHours: Int? = nil) { self.requestedTTLHours = requestedTTLHours }

    public init(payload: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(payload, Self.handler.rawValue, allowed: ["requested_ttl_hours"])
        requestedTTLHours = try fields.optionalInteger("requested_ttl_hours", in: 1...168).map { Int($0) }
    }

    public var payload: JSONObject {
        var json = JSONObject()
        if let requestedTTLHours { json["requested_ttl_hours"] = .integer(Int64(requestedTTLHours)) }
        return json
    }
}

/// `{credentials, expires_at, credential_id}`: `credentials` sealed with the session key exactly like the
/// bootstrap reply's (AAD `"app-vault-v1|bootstrap|" + session_id`).
public struct CredentialsRefreshResult: VaultResultPayload {
    public var credentials: SealedCredentials
    public var expiresAt: Int64
    public var credentialID: String

    public init(credentials: SealedCredentials, expiresAt: Int64, credentialID: String) {
        self.credentials = credentials
        self.expiresAt = expiresAt
        self.credentialID = credentialID
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "credentials refresh result", allowed: ["credentials", "expires_at", "credential_id"])
        credentials = try SealedCredentials(json: fields.object("credentials"))
        expiresAt = try fields.integer("expires_at")
        credentialID = try fields.key("credential_id")
    }

    public var result: JSONObject {
        ["credentials": .object(credentials.json), "expires_at": .integer(expiresAt), "credential_id": .string(credentialID)]
    }
}

/// `credentials.status {}` → `CredentialsStatusResult`.
public struct CredentialsStatusRequest: VaultRequestPayload {
    public static let handler = VaultHandler.credentialsStatus
    public typealias Result = CredentialsStatusResult

    public init() {}

    public init(payload: JSONObject) throws(VaultProtocolError) {
        _ = try VaultFields(payload, Self.handler.rawValue, allowed: [])
    }

    public var payload: JSONObject { JSONObject() }
}

/// `{credential_id, expires_at, ttl_seconds}` of the app's current creds (`ttl_seconds`: what is left).
public struct CredentialsStatusResult: VaultResultPayload {
    public var credentialID: String
    public var expiresAt: Int64
    public var ttlSeconds: Int64

    public init(credentialID: String, expiresAt: Int64, ttlSeconds: Int64) {
        self.credentialID = credentialID
        self.expiresAt = expiresAt
        self.ttlSeconds = ttlSeconds
    }

    public init(result: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(result, "credentials status result", allowed: ["credential_id", "expires_at", "ttl_seconds"])
        credentialID = try fields.key("credential_id")
        expiresAt = try fields.integer("expires_at")
        ttlSeconds = try fields.integer("ttl_seconds")
    }

    public var result: JSONObject {
        ["credential_id": .string(credentialID), "expires_at": .integer(expiresAt), "ttl_seconds": .integer(ttlSeconds)]
    }
}
