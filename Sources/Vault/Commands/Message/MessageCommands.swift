import Foundation
import VaultProtocol

// `message.*`: what the app sends its connections, vault to vault under the connection key, and what the vault
// stored (module README, "Connections and messages").

/// `message.send`: stored (sealed) as sent, then sealed for the peer and published to its MessageSpace with the
/// credentials it gave. `delivered` is true when the peer's vault acknowledged it within
/// `ConnectionPolicy.ackTimeout` — it has stored it by then; false when the peer's bus took it but no
/// acknowledgement came yet (a late one still marks it delivered), or when the bus could not be reached. Sending
/// again with the same `message_id` sends the stored message again (the peer recognises it), or nothing at all once
/// it was delivered.
enum MessageSendCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: MessageSendRequest, in context: CommandContext) async throws -> MessageSendResult {
        let now = context.now
        let id = request.connectionID
        let record = try await context.activeConnection(id)
        let messages = context.messages
        let messageID = request.messageID ?? VaultID.make(context.random)
        var message = StoredMessage(
            messageID: messageID, content: request.content, contentType: request.contentType, sentAt: Int64(now.timeIntervalSince1970))
        if try await !messages.insert(message, connectionID: id, direction: .outgoing, now: now) {
            guard let stored = try await messages.get(messageID, connectionID: id, direction: .outgoing) else {
                throw VaultEventError.notFound("message \(messageID)")
            }
            if stored.deliveredAt != nil { return MessageSendResult(messageID: messageID, sentAt: stored.message.sentAt, delivered: true) }
            message = stored.message
        }
        let body = PeerTextMessage(messageID: message.messageID, content: message.content, contentType: message.contentType, sentAt: message.sentAt)
        let seq: UInt64
        do {
            seq = try await context.peers.send(body, on: record, senderKey: nil, expectAck: true)
        } catch .unreachable {
            return MessageSendResult(messageID: messageID, sentAt: message.sentAt, delivered: false)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        let delivered = await context.peers.awaitAck(id, seq: seq)
        return MessageSendResult(messageID: messageID, sentAt: message.sentAt, delivered: delivered)
    }
}

/// `message.read-receipt`: marks a received message read and tells its sender (whose app gets `read-receipt`).
enum MessageReadReceiptCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: MessageReadReceiptRequest, in context: CommandContext) async throws -> MessageReadReceiptResult {
        let id = request.connectionID
        let record = try await context.activeConnection(id)
        let messages = context.messages
        guard let entry = try await messages.get(request.messageID, connectionID: id, direction: .incoming) else {
            throw VaultEventError.notFound("message \(request.messageID)")
        }
        _ = try await messages.markRead(request.messageID, connectionID: id, direction: .incoming, at: context.now)
        let readAt = Int64((entry.readAt ?? context.now).timeIntervalSince1970)
        do {
            _ = try await context.peers.send(PeerReadReceipt(messageID: request.messageID, readAt: readAt), on: record)
        } catch {
            throw VaultEventError.peer(error, id)
        }
        return MessageReadReceiptResult(messageID: request.messageID, readAt: readAt)
    }
}

/// `message.list`: what the vault stored, sent and received, oldest first (pushes go out once; an app that was away
/// catches up here).
enum MessageListCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ request: MessageListRequest, in context: CommandContext) async throws -> MessageListResult {
        let direction = request.direction.map { $0 == .incoming ? VaultMessages.Direction.incoming : .outgoing }
        let (listed, more) = try await context.messages.list(
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
}

/// `profile.broadcast`: the profile (or the fields asked for) to every active connection; `sent_to` counts the peers
/// whose bus took it.
enum ProfileBroadcastCommand: VaultCommand {
    static let effect = CommandEffect.peer

    static func run(_ request: ProfileBroadcastRequest, in context: CommandContext) async throws -> ProfileBroadcastResult {
        let records = context.records(.profile)
        let profile = try await ProfileFields.read(request.fields, from: records)
        let version = try await ProfileFields.version(records)
        var sent = 0
        for connection in try await context.connections.all() where connection.status == .active {
            if (try? await context.peers.send(PeerProfile(profile: profile, version: version), on: connection)) != nil { sent += 1 }
        }
        return ProfileBroadcastResult(sentTo: sent)
    }
}
