import TesseraJOSE

/// Every handler of the catalogue: the `type` of an app → vault event and the last tokens of its subject
/// (`OwnerSpace.{guid}.forVault.{rawValue}`). `app.bootstrap` is not here: it is the one plaintext event
/// (`VaultSubjects.bootstrapType`).
public enum VaultHandler: String, Sendable, CaseIterable {
    case datastoreAdd = "secrets.datastore.add"
    case datastoreUpdate = "secrets.datastore.update"
    case datastoreRetrieve = "secrets.datastore.retrieve"
    case datastoreDelete = "secrets.datastore.delete"
    case datastoreList = "secrets.datastore.list"
    case profileGet = "profile.get"
    case profileUpdate = "profile.update"
    case profileDelete = "profile.delete"
    case profileBroadcast = "profile.broadcast"
    case credentialStore = "credential.store"
    case credentialSync = "credential.sync"
    case credentialGet = "credential.get"
    case credentialVersion = "credential.version"
    case credentialsRefresh = "credentials.refresh"
    case credentialsStatus = "credentials.status"
    case connectionCreateInvite = "connection.create-invite"
    case connectionStoreCredentials = "connection.store-credentials"
    case connectionRotate = "connection.rotate"
    case connectionRevoke = "connection.revoke"
    case connectionList = "connection.list"
    case connectionGetCredentials = "connection.get-credentials"
    /// What a vault sends its peer when the connection is revoked; the app sees it only as the `connection-revoked`
    /// push. An app does not send it: it sends `connection.revoke`, and its vault revokes locally first, then tells
    /// the peer.
    case connectionNotifyRevoke = "connection.notify-revoke"
    case messageSend = "message.send"
    case messageReadReceipt = "message.read-receipt"
    /// Not in the seed's catalogue: the messages the vault stored (pushes are sent once; an app that was offline
    /// reads them here).
    case messageList = "message.list"
    case sessionRotate = "session.rotate"

    /// The typed request payload of this handler.
    public var requestType: any VaultRequestPayload.Type {
        switch self {
        case .datastoreAdd: return DatastoreAddRequest.self
        case .datastoreUpdate: return DatastoreUpdateRequest.self
        case .datastoreRetrieve: return DatastoreRetrieveRequest.self
        case .datastoreDelete: return DatastoreDeleteRequest.self
        case .datastoreList: return DatastoreListRequest.self
        case .profileGet: return ProfileGetRequest.self
        case .profileUpdate: return ProfileUpdateRequest.self
        case .profileDelete: return ProfileDeleteRequest.self
        case .profileBroadcast: return ProfileBroadcastRequest.self
        case .credentialStore: return CredentialStoreRequest.self
        case .credentialSync: return CredentialSyncRequest.self
        case .credentialGet: return CredentialGetRequest.self
        case .credentialVersion: return CredentialVersionRequest.self
        case .credentialsRefresh: return CredentialsRefreshRequest.self
        case .credentialsStatus: return CredentialsStatusRequest.self
        case .connectionCreateInvite: return ConnectionCreateInviteRequest.self
        case .connectionStoreCredentials: return ConnectionStoreCredentialsRequest.self
        case .connectionRotate: return ConnectionRotateRequest.self
        case .connectionRevoke: return ConnectionRevokeRequest.self
        case .connectionList: return ConnectionListRequest.self
        case .connectionGetCredentials: return ConnectionGetCredentialsRequest.self
        case .connectionNotifyRevoke: return ConnectionNotifyRevokeRequest.self
        case .messageSend: return MessageSendRequest.self
        case .messageReadReceipt: return MessageReadReceiptRequest.self
        case .messageList: return MessageListRequest.self
        case .sessionRotate: return SessionRotateRequest.self
        }
    }

    /// The typed result of this handler.
    public var resultType: any VaultResultPayload.Type {
        switch self {
        case .datastoreAdd, .datastoreUpdate: return DatastoreWriteResult.self
        case .datastoreRetrieve: return DatastoreRetrieveResult.self
        case .datastoreDelete: return DatastoreDeleteResult.self
        case .datastoreList: return DatastoreListResult.self
        case .profileGet: return ProfileGetResult.self
        case .profileUpdate: return ProfileUpdateResult.self
        case .profileDelete: return ProfileDeleteResult.self
        case .profileBroadcast: return ProfileBroadcastResult.self
        case .credentialStore: return CredentialStoreResult.self
        case .credentialSync: return CredentialSyncResult.self
        case .credentialGet: return CredentialRecord.self
        case .credentialVersion: return CredentialVersionResult.self
        case .credentialsRefresh: return CredentialsRefreshResult.self
        case .credentialsStatus: return CredentialsStatusResult.self
        case .connectionCreateInvite: return ConnectionCreateInviteResult.self
        case .connectionStoreCredentials: return ConnectionStoreCredentialsResult.self
        case .connectionRotate: return ConnectionRotateResult.self
        case .connectionRevoke: return ConnectionRevokeResult.self
        case .connectionList: return ConnectionListResult.self
        case .connectionGetCredentials: return ConnectionGetCredentialsResult.self
        case .connectionNotifyRevoke: return ConnectionNotifyRevokeResult.self
        case .messageSend: return MessageSendResult.self
        case .messageReadReceipt: return MessageReadReceiptResult.self
        case .messageList: return MessageListResult.self
        case .sessionRotate: return SessionRotateResult.self
        }
    }
}

/// The payload of an app → vault event, decoded strictly (unknown members refused, lengths and ranges checked) and
/// encoded by the app.
public protocol VaultRequestPayload: Sendable, Equatable {
    static var handler: VaultHandler { get }
    init(payload: JSONObject) throws(VaultProtocolError)
    var payload: JSONObject { get }
}

/// The `result` of a successful response, decoded as strictly by the app.
public protocol VaultResultPayload: Sendable, Equatable {
    init(result: JSONObject) throws(VaultProtocolError)
    var result: JSONObject { get }
}

extension VaultRequestPayload {
    /// The event that carries this request.
    public func event(id: String, timestamp: Int64) -> VaultEventMessage {
        VaultEventMessage(id: id, type: Self.handler.rawValue, payload: payload, timestamp: timestamp)
    }
}

extension VaultEventMessage {
    /// The handler this event names, or nil for a type outside the catalogue.
    public var handler: VaultHandler? { VaultHandler(rawValue: type) }

    /// The payload decoded as `T`; `malformed` when the event is for another handler.
    public func request<T: VaultRequestPayload>(_ type: T.Type) throws(VaultProtocolError) -> T {
        guard self.type == T.handler.rawValue else { throw .malformed("event.type is \(VaultFields.shown(self.type)), not \(T.handler.rawValue)") }
        return try T(payload: payload)
    }
}

extension VaultEventResponse {
    /// The result of a success decoded as `T`; a failure throws `eventFailed` with its error.
    public func result<T: VaultResultPayload>(_ type: T.Type) throws(VaultProtocolError) -> T {
        guard success else { throw .eventFailed(error ?? VaultEventError(code: "unknown", message: "")) }
        return try T(result: result ?? JSONObject())
    }
}
