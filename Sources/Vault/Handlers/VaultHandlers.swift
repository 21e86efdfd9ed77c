import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

extension VaultHandler {
    /// Whether the command changes what the vault stores: such commands run once per event id, in one transaction.
    var changesState: Bool {
        switch self {
        case .datastoreRetrieve, .datastoreList, .profileGet, .credentialGet, .credentialSync, .credentialVersion,
            .credentialsStatus, .connectionList, .connectionGetCredentials, .messageList:
            return false
        default:
            return !talksToPeers
        }
    }

    /// Commands that neither change state nor talk to peers: they may run concurrently (`VaultRuntime.receive`).
    var readsOnly: Bool { !changesState && !talksToPeers && self != .sessionRotate }

    /// Commands that publish to peer vaults and wait for them (or push account JWTs): they run outside the command
    /// transaction, so no database lock is held while the network is awaited, and make their own writes, each one
    /// idempotent — by connection id (an invite accepted again re-sends the same accept, a revoke of a revoked
    /// connection changes nothing) and by message id (`VaultClient` always sends one, so a retried `message.send`
    /// is the same message). `connection.create-invite` is here too: it sweeps expired invites (a revocation push).
    var talksToPeers: Bool {
        switch self {
        case .connectionCreateInvite, .connectionStoreCredentials, .connectionRotate, .connectionRevoke,
            .connectionNotifyRevoke, .messageSend, .messageReadReceipt, .profileBroadcast:
            return true
        default:
            return false
        }
    }
}

/// Routes a command to its handler family.
enum VaultHandlers {
    static func run(_ request: HandlerRequest, db: ServiceSQL) async throws -> JSONObject {
        switch request.handler {
        case .datastoreAdd, .datastoreUpdate, .datastoreRetrieve, .datastoreDelete, .datastoreList:
            return try await DatastoreHandlers.run(request, db: db)
        case .profileGet, .profileUpdate, .profileDelete:
            return try await ProfileHandlers.run(request, db: db)
        case .credentialStore, .credentialSync, .credentialGet, .credentialVersion:
            return try await CredentialHandlers.run(request, db: db)
        case .credentialsRefresh, .credentialsStatus:
            return try await NATSCredentialHandlers.run(request, db: db)
        case .connectionCreateInvite, .connectionStoreCredentials, .connectionRotate, .connectionRevoke, .connectionList,
            .connectionGetCredentials, .connectionNotifyRevoke:
            return try await ConnectionHandlers.run(request)
        case .messageSend, .messageReadReceipt, .messageList, .profileBroadcast:
            return try await MessageHandlers.run(request)
        case .sessionRotate:
            throw VaultEventError(code: "invalid_request", message: "session.rotate is handled by the session")
        }
    }
}
