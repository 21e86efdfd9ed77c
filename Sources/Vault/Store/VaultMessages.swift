import Foundation
import SQLKit
import ServiceSupport

/// A message as the vault keeps it (sealed): sent (`out`) or received (`in`) on one connection.
struct StoredMessage: Codable, Sendable, Equatable {
    var messageID: String
    var content: String
    var contentType: String
    var sentAt: Int64
}

/// The messages of a user's connections (`vt_messages`). A message is stored once per direction and message id (the
/// row id is an HMAC of them under the user's key), so a re-delivered or re-sent message is recognised, never
/// stored or pushed twice; the body is sealed, so a dump shows neither text nor message ids.
struct VaultMessages: Sendable {
    enum Direction: String, Sendable { case outgoing = "out", incoming = "in" }

    struct Entry: Sendable {
        let message: StoredMessage
        let deliveredAt: Date?
        let readAt: Date?
    }

    let db: ServiceSQL
    let keyring: VaultKeyring

    private var user: String { keyring.user }
    private func rowID(_ connectionID: String, _ direction: Direction, _ messageID: String) -> String {
        "\(user)|\(connectionID)|" + keyring.recordName(collection: "message-" + direction.rawValue, name: messageID)
    }

    /// Stores the message; false when it was already there (nothing changes then).
    func insert(_ message: StoredMessage, connectionID: String, direction: Direction, now: Date) async throws -> Bool {
        let id = rowID(connectionID, direction, message.messageID)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let sealed = try keyring.seal(try encoder.encode(message), table: "vt_messages", row: id)
        let user = self.user
        let inserted = try await db.run { sql in
            try await sql.raw("""
                INSERT INTO vt_messages (id, user_guid, connection_id, direction, body_sealed, delivered_at, read_at, created_at)
                VALUES (\(bind: id), \(bind: user), \(bind: connectionID), \(bind: direction.rawValue), \(bind: sealed), NULL, NULL,
                  \(bind: now.timeIntervalSince1970))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """).first(decoding: IDRow.self)
        }
        return inserted != nil
    }

    func get(_ messageID: String, connectionID: String, direction: Direction) async throws -> Entry? {
        let id = rowID(connectionID, direction, messageID)
        guard let row = try await db.run({ sql in
            try await sql.select().columns("id", "body_sealed", "delivered_at", "read_at").from("vt_messages").where("id", .equal, id)
                .first(decoding: MessageRow.self)
        }) else { return nil }
        let plaintext = try keyring.open(row.body_sealed, table: "vt_messages", row: row.id)
        guard let message = try? JSONDecoder().decode(StoredMessage.self, from: plaintext) else { throw WireError.server }
        return Entry(
            message: message, deliveredAt: row.delivered_at.map(Date.init(timeIntervalSince1970:)),
            readAt: row.read_at.map(Date.init(timeIntervalSince1970:)))
    }

    /// Stored messages, oldest first (`created_at`, then row id: a stable order for `offset`), at most `limit`
    /// plus whether more exist. Filters run on the plaintext columns; only the bodies returned are opened.
    func list(
        connectionID: String?, direction: Direction?, unreadOnly: Bool, offset: Int64, limit: Int64
    ) async throws -> (entries: [Listed], more: Bool) {
        let user = self.user
        let rows = try await db.run { sql in
            var query = sql.select()
                .columns("id", "connection_id", "direction", "body_sealed", "delivered_at", "read_at", "created_at")
                .from("vt_messages").where("user_guid", .equal, user)
            if let connectionID { query = query.where("connection_id", .equal, connectionID) }
            if let direction { query = query.where("direction", .equal, direction.rawValue) }
            if unreadOnly { query = query.where("direction", .equal, Direction.incoming.rawValue).where("read_at", .is, SQLLiteral.null) }
            return try await query.orderBy("created_at").orderBy("id").offset(Int(offset)).limit(Int(limit) + 1)
                .all(decoding: ListedMessageRow.self)
        }
        var entries: [Listed] = []
        for row in rows.prefix(Int(limit)) {
            let plaintext = try keyring.open(row.body_sealed, table: "vt_messages", row: row.id)
            guard let message = try? JSONDecoder().decode(StoredMessage.self, from: plaintext),
                let direction = Direction(rawValue: row.direction)
            else { throw WireError.server }
            entries.append(Listed(
                connectionID: row.connection_id, direction: direction, storedAt: Date(timeIntervalSince1970: row.created_at),
                entry: Entry(
                    message: message, deliveredAt: row.delivered_at.map(Date.init(timeIntervalSince1970:)),
                    readAt: row.read_at.map(Date.init(timeIntervalSince1970:)))))
        }
        return (entries, rows.count > Int(limit))
    }

    struct Listed: Sendable {
        let connectionID: String
        let direction: Direction
        let storedAt: Date
        let entry: Entry
    }

    /// The peer's vault acknowledged an outgoing message.
    func markDelivered(_ messageID: String, connectionID: String, at: Date) async throws {
        let id = rowID(connectionID, .outgoing, messageID)
        try await db.run { sql in
            try await sql.raw("UPDATE vt_messages SET delivered_at = \(bind: at.timeIntervalSince1970) WHERE id = \(bind: id) AND delivered_at IS NULL").run()
        }
    }

    /// Marks the message read; true only the first time.
    func markRead(_ messageID: String, connectionID: String, direction: Direction, at: Date) async throws -> Bool {
        let id = rowID(connectionID, direction, messageID)
        return try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_messages SET read_at = \(bind: at.timeIntervalSince1970) WHERE id = \(bind: id) AND read_at IS NULL RETURNING id
                """).first(decoding: IDRow.self)
        } != nil
    }
}

struct ListedMessageRow: Decodable, Sendable {
    let id: String
    let connection_id: String
    let direction: String
    let body_sealed: String
    let delivered_at: Double?
    let read_at: Double?
    let created_at: Double
}

struct MessageRow: Decodable, Sendable {
    let id: String
    let body_sealed: String
    let delivered_at: Double?
    let read_at: Double?
}
