import Foundation
import NATSClient

/// A connection to an `InProcessNATSServer`, authenticated as one user of one account. It stays open until
/// `close()` or until a revocation of its user ends it.
public final class InProcessNATSConnection: NATSConnection {
    /// The account (`A…`) whose subject space the connection uses, and the user (`U…`) it authenticated as.
    public let account: String
    public let user: String
    public let name: String
    let server: InProcessNATSServer
    let id: UInt64
    let permissions: UserPermissions

    init(server: InProcessNATSServer, id: UInt64, account: String, user: String, name: String, permissions: UserPermissions) {
        self.server = server
        self.id = id
        self.account = account
        self.user = user
        self.name = name
        self.permissions = permissions
    }

    /// Checks as `NATSClient.publish` does (subject and reply subject without wildcards, headers encodable, headers
    /// and payload within `max_payload`), then as the server does (open, publish permission), then delivers. A
    /// forbidden subject throws `permissionViolation(operation: "Publish", …)` here, where `NATSClient` throws it
    /// from the next `flush`.
    public func publish(_ payload: Data, to subject: String, replyTo: String?, headers: NATSHeaders?) async throws {
        try ClientCommand.validate(subject: subject, allowWildcards: false)
        if let replyTo { try ClientCommand.validate(subject: replyTo, allowWildcards: false) }
        let headerBytes = try headers.map { h throws(NATSError) in try h.encoded() }
        let size = (headerBytes?.count ?? 0) + payload.count
        guard size <= server.maxPayload else { throw NATSError.payloadTooLarge(size: size, limit: server.maxPayload) }
        // Subscribers get the headers as a nats-server subscriber reads them back from the wire.
        let delivered = try headerBytes.map { bytes throws(NATSError) in try NATSHeaders.parse(bytes[...]).0 }
        try server.route(
            NATSMessage(subject: subject, replyTo: replyTo, headers: delivered, payload: payload), from: id,
            account: account, permission: permissions.publish)
    }

    public func subscribe(to subject: String, queue: String?) async throws -> Subscription {
        try ClientCommand.validate(subject: subject)
        if let queue { try ClientCommand.validate(queue: queue) }
        return try server.subscribe(to: subject, queue: queue, from: id, account: account, permission: permissions.subscribe)
    }

    /// Delivery is synchronous: nothing is ever pending. Throws `connectionClosed` once closed.
    public func flush(timeout: Duration) async throws {
        guard server.isOpen(id, account: account) else { throw NATSError.connectionClosed }
    }

    public func close() async {
        server.close(id, account: account)
    }
}
