import Foundation
import TesseraJOSE
import VaultProtocol

/// `message.send`, `message.read-receipt` and `profile.broadcast`: what the app sends its connections, vault to
/// vault under the connection key; `message.list`: what the vault stored.
enum MessageHandlers {
    static func run(_ request: HandlerRequest) async throws -> JSONObject {
        let runtime = request.runtime
        switch request.handler {
        case .messageSend:
            return try await runtime.sendMessage(MessageSendRequest(payload: request.payload)).result
        case .messageReadReceipt:
            return try await runtime.sendReadReceipt(MessageReadReceiptRequest(payload: request.payload)).result
        case .profileBroadcast:
            return try await runtime.broadcastProfile(ProfileBroadcastRequest(payload: request.payload)).result
        case .messageList:
            return try await runtime.listMessages(MessageListRequest(payload: request.payload)).result
        default:
            throw VaultEventError(code: "invalid_request", message: "not a message command")
        }
    }
}

extension VaultRuntime {
    /// `message.send`: stored (sealed) as sent, then sealed for the peer and published to its MessageSpace with the
    /// credentials it gave. `delivered` is true when the peer's vault acknowledged it within
    /// `ConnectionPolicy.ackTimeout` — it has stored it by then; false when the peer's bus took it but no
    /// acknowledgement came yet (a late one still marks it delivered), or when the bus could not be reached. Sending
    /// again with the same `message_id` sends the stored message again (the peer recognises it), or nothing at all
    /// once it was delivered.
    func sendMessage(_ request: MessageSendRequest) async throws -> MessageSendResult {
        let now = context.clock.now()
        let id = request.connectionID
        let record = try await activeConnection(id)
        let messageID = request.messageID ?? newID()
        var message = StoredMessage(
            messageID: messageID, content: request.content, contentType: request.contentType, sentAt: Int64(now.timeIntervalSince1970))
        if try await !messageStore.insert(message, connectionID: id, direction: .outgoing, now: now) {
            guard let stored = try await messageStore.get(messageID, connectionID: id, direction: .outgoing) else {
                throw VaultEventError.notFound("message \(messageID)")
            }
            if stored.deliveredAt != nil { return MessageSendResult(messageID: messageID, sentAt: stored.message.sentAt, delivered: true) }
            message = stored.message
        }
        let body = PeerTextMessage(messageID: message.messageID, content: message.content, contentType: message.contentType, sentAt: message.sentAt)
        let seq: UInt64
        do {
            seq = try await sendPeer(body, on: record, expectAck: true)
        } catch .unreachable {
            return MessageSendResult(messageID: messageID, sentAt: message.sentAt, delivered: false)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        let delivered = await awaitAck(id, seq: seq)
        return MessageSendResult(messageID: messageID, sentAt: message.sentAt, delivered: delivered)
    }

    /// `message.list`: what the vault stored, sent and received, oldest first.
    func listMessages(_ request: MessageListRequest) async throws -> MessageListResult {
        let direction = request.direction.map { $0 == .incoming ? VaultMessages.Direction.incoming : .outgoing }
        let (listed, more) = try await messageStore.list(
            connectionID: request.connectionID, direction: direction, unreadOnly: request.unreadOnly, offset: request.offset,
            limit: request.limit)
        let messages = listed.map { item in
            StoredMessageSummary(
                connectionID: item.connectionID, messageID: item.entry.message.messageID,
                direction: item.direction == .incoming ? .incoming : .outgoing, content: item.entry.message.content,
                contentType: item.entry.message.contentType, sentAt: item.entry.message.sentAt,
                storedAt: Int64(item.storedAt.timeIntervalSince1970), deliveredAt: item.entry.deliveredAt.map { Int64($0.timeIntervalSince1970) },
                readAt: item.entry.readAt.map { Int64($0.timeIntervalSince1970) })
        }
        return MessageListResult(messages: messages, more: more)
    }

    /// `message.read-receipt`: marks a received message read and tells its sender (whose app gets `read-receipt`).
    func sendReadReceipt(_ request: MessageReadReceiptRequest) async throws -> MessageReadReceiptResult {
        let now = context.clock.now()
        let id = request.connectionID
        let record = try await activeConnection(id)
        guard let entry = try await messageStore.get(request.messageID, connectionID: id, direction: .incoming) else {
            throw VaultEventError.notFound("message \(request.messageID)")
        }
        _ = try await messageStore.markRead(request.messageID, connectionID: id, direction: .incoming, at: now)
        let readAt = Int64((entry.readAt ?? now).timeIntervalSince1970)
        do {
            _ = try await sendPeer(PeerReadReceipt(messageID: request.messageID, readAt: readAt), on: record)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        return MessageReadReceiptResult(messageID: request.messageID, readAt: readAt)
    }

    /// `profile.broadcast`: the profile (or the fields asked for) to every active connection; `sent_to` counts the
    /// peers whose bus took it.
    func broadcastProfile(_ request: ProfileBroadcastRequest) async throws -> ProfileBroadcastResult {
        let records = VaultRecords(db: context.sql, keyring: keyring, collection: VaultCollection.profile.rawValue)
        var profile: [String: String] = [:]
        for field in try await records.live(values: true) where request.fields.map({ $0.contains(field.name) }) ?? true {
            profile[field.name] = field.value.map { String(decoding: $0, as: UTF8.self) }
        }
        let version = try await ProfileHandlers.version(records)
        var sent = 0
        for connection in try await connectionStore.all() where connection.status == .active {
            if (try? await sendPeer(PeerProfile(profile: profile, version: version), on: connection)) != nil { sent += 1 }
        }
        return ProfileBroadcastResult(sentTo: sent)
    }
}
