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

    /// The typed request payload of this handler (`requests` lists each once).
    public var requestType: any VaultRequestPayload.Type {
        // crash-safe: `requests` holds one type per case (HandlerPayloadTests.everyHandlerHasExactlyOneRequestType).
        Self.requestsByHandler[self]!
    }

    /// The typed result of this handler: its request's `Result`.
    public var resultType: any VaultResultPayload.Type { requestType.resultType }

    /// Every handler's request payload, once (ARCHITECTURE.md decision 11: a handler is a typed value registered
    /// once, not a case repeated in several switches). A request names its handler (`handler`) and the result a
    /// success carries (`Result`), so this list is the whole catalogue of the wire.
    public static let requests: [any VaultRequestPayload.Type] = [
        DatastoreAddRequest.self, DatastoreUpdateRequest.self, DatastoreRetrieveRequest.self, DatastoreDeleteRequest.self,
        DatastoreListRequest.self,
        ProfileGetRequest.self, ProfileUpdateRequest.self, ProfileDeleteRequest.self, ProfileBroadcastRequest.self,
        CredentialStoreRequest.self, CredentialSyncRequest.self, CredentialGetRequest.self, CredentialVersionRequest.self,
        CredentialsRefreshRequest.self, CredentialsStatusRequest.self,
        ConnectionCreateInviteRequest.self, ConnectionStoreCredentialsRequest.self, ConnectionRotateRequest.self,
        ConnectionRevokeRequest.self, ConnectionListRequest.self, ConnectionGetCredentialsRequest.self,
        ConnectionNotifyRevokeRequest.self,
        MessageSendRequest.self, MessageReadReceiptRequest.self, MessageListRequest.self,
        SessionRotateRequest.self,
    ]

    /// `requests` by handler; a second type for the same handler would be ignored (the test named above refuses it).
    private static let requestsByHandler: [VaultHandler: any VaultRequestPayload.Type] = Dictionary(
        requests.map { ($0.handler, $0) }, uniquingKeysWith: { first, _ in first })
}

/// The payload of an app → vault event, decoded strictly (unknown members refused, lengths and ranges checked) and
/// encoded by the app.
public protocol VaultRequestPayload: Sendable, Equatable {
    /// What a success of this request carries.
    associatedtype Result: VaultResultPayload
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
    /// `Result` as a value (for the catalogue's `resultType`).
    public static var resultType: any VaultResultPayload.Type { Result.self }

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
