import Foundation
import TesseraJOSE
import VaultProtocol

/// Connections with other users' vaults and the messages they carry. The vaults do the work (keys, credentials,
/// encryption vault to vault); the app sees connection ids, its own labels and pushes (`notifications`):
/// `new-message`, `read-receipt`, `profile-update`, `connection-revoked`.
extension VaultConnection {
    /// A new invite (opaque text, to hand to the other user out of band: a QR code, a link), valid `ttlSeconds`.
    /// `label` is this user's own name for the connection; it is not put in the invite.
    public func createInvite(label: String? = nil, ttlSeconds: Int64 = ConnectionCreateInviteRequest.defaultTTL) async throws(VaultError) -> ConnectionCreateInviteResult {
        try await perform(ConnectionCreateInviteRequest(label: label, ttlSeconds: ttlSeconds), expecting: ConnectionCreateInviteResult.self)
    }

    /// Accepts another user's invite (`connection.store-credentials`): `active` once the inviter's vault confirmed
    /// it, `pending` if it did not answer in time (accepting the same invite again completes it).
    public func acceptInvite(_ invite: String, label: String? = nil) async throws(VaultError) -> ConnectionStoreCredentialsResult {
        try await perform(ConnectionStoreCredentialsRequest(invite: invite, label: label), expecting: ConnectionStoreCredentialsResult.self)
    }

    /// Every connection that has a peer (pending, active and revoked).
    public func connections() async throws(VaultError) -> [ConnectionSummary] {
        try await perform(ConnectionListRequest(), expecting: ConnectionListResult.self).connections
    }

    /// What this vault's credentials for the connection allow (subjects in the peer's account) and their expiry.
    public func connectionCredentials(_ connectionID: String) async throws(VaultError) -> ConnectionGetCredentialsResult {
        try await perform(ConnectionGetCredentialsRequest(connectionID: connectionID), expecting: ConnectionGetCredentialsResult.self)
    }

    /// New connection keys and credentials; `peer_unreachable` when the peer's vault did not confirm (nothing
    /// changed then: retry later).
    public func rotateConnection(_ connectionID: String) async throws(VaultError) -> ConnectionRotateResult {
        try await perform(ConnectionRotateRequest(connectionID: connectionID), expecting: ConnectionRotateResult.self)
    }

    /// Revokes the connection on both sides: the peer can no longer publish to this vault (the bus refuses it).
    public func revokeConnection(_ connectionID: String) async throws(VaultError) -> ConnectionRevokeResult {
        try await perform(ConnectionRevokeRequest(connectionID: connectionID), expecting: ConnectionRevokeResult.self)
    }

    /// Sends a message; `delivered` once the peer's vault stored it. The message id is chosen here when not given,
    /// so that a retry (the same id) is recognised and never delivered twice. A revoked connection fails with
    /// `.vault(code: "connection_revoked", …)`, an unknown one with `not_found`.
    public func sendMessage(
        _ content: String, to connectionID: String, contentType: String = MessageSendRequest.defaultContentType, messageID: String? = nil
    ) async throws(VaultError) -> MessageSendResult {
        let request = MessageSendRequest(connectionID: connectionID, content: content, contentType: contentType, messageID: messageID ?? newID())
        return try await perform(request, expecting: MessageSendResult.self)
    }

    /// The messages the vault stored, oldest first (pushes are sent once: this is how an app that was offline catches
    /// up). `more` says whether another page follows (`offset + limit`).
    public func messages(_ request: MessageListRequest = MessageListRequest()) async throws(VaultError) -> MessageListResult {
        try await perform(request, expecting: MessageListResult.self)
    }

    /// Pushes are published once: one published while this app was away from the bus (offline, reconnecting, a
    /// cluster node failing over) is gone, though the vault stored its message. `catchUp` reads the unread messages
    /// the vault stored and hands each one `notifications` has not delivered yet to it, as the `new-message` push it
    /// would have been; answers how many. Call it after connecting and after a reconnect.
    @discardableResult
    public func catchUp() async throws(VaultError) -> Int {
        var request = MessageListRequest(direction: .incoming, unreadOnly: true, limit: MessageListRequest.maxLimit)
        var delivered = 0
        while true {
            let page = try await messages(request)
            for message in page.messages {
                let push = NewMessagePush(
                    messageID: message.messageID, connectionID: message.connectionID, content: message.content,
                    contentType: message.contentType, sentAt: message.sentAt)
                let event = VaultEventMessage(
                    id: newID(), type: VaultNotification.newMessage.rawValue, payload: push.payload, timestamp: message.storedAt)
                if deliver(event) { delivered += 1 }
            }
            guard page.more else { return delivered }
            request.offset += Int64(page.messages.count)
        }
    }

    /// Tells the sender of a received message that it was read (its app gets `read-receipt`).
    public func sendReadReceipt(for messageID: String, on connectionID: String) async throws(VaultError) -> MessageReadReceiptResult {
        try await perform(MessageReadReceiptRequest(connectionID: connectionID, messageID: messageID), expecting: MessageReadReceiptResult.self)
    }

    /// Sends the profile (or these fields of it) to every active connection; answers how many peers it went to.
    public func broadcastProfile(fields: [String]? = nil) async throws(VaultError) -> Int {
        try await perform(ProfileBroadcastRequest(fields: fields), expecting: ProfileBroadcastResult.self).sentTo
    }
}
