import Foundation

/// What a vault host or an app needs from a bus: publish, subscribe, flush and close. `NATSClient` (a real
/// nats-server) and NATSClientTesting's `InProcessNATSConnection` (the embedded bus of `tessera demo`) both provide it, so the same code
/// runs on either.
///
/// One difference is inherent: nats-server reports a forbidden publish asynchronously, so `NATSClient.publish`
/// returns and the following `flush` throws `permissionViolation`; the in-process bus throws it from `publish`.
/// Code that needs to know must flush after publishing.
public protocol NATSConnection: Sendable {
    /// Publishes `payload` on `subject` (no wildcards), with an optional reply subject and headers.
    func publish(_ payload: Data, to subject: String, replyTo: String?, headers: NATSHeaders?) async throws
    /// Subscribes to `subject` (wildcards allowed), optionally in a queue group. A subscription the server refuses
    /// ends its sequence with `permissionViolation(operation: "Subscription", …)`.
    func subscribe(to subject: String, queue: String?) async throws -> Subscription
    /// Waits until the server processed everything published before; throws a violation reported meanwhile.
    func flush(timeout: Duration) async throws
    /// Closes the connection; its subscriptions end.
    func close() async
}

extension NATSConnection {
    public func publish(_ payload: Data, to subject: String) async throws {
        try await publish(payload, to: subject, replyTo: nil, headers: nil)
    }

    public func subscribe(to subject: String) async throws -> Subscription {
        try await subscribe(to: subject, queue: nil)
    }

    public func flush() async throws {
        try await flush(timeout: .seconds(10))
    }
}

/// Opens connections authenticated with a user's credentials (operator mode): `NATSServerConnector` for
/// nats-server, `InProcessNATSServer` for the embedded bus.
public protocol NATSConnector: Sendable {
    /// A connection for `credentials`; `name` identifies it (CONNECT `name`). Throws `authorizationViolation` when
    /// the bus refuses the credentials.
    func connect(credentials: NATSCredentials, name: String) async throws -> any NATSConnection
}

extension NATSClient: NATSConnection {}
