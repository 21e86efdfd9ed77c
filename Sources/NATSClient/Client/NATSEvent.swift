/// What happens to the connection, for callers that watch it (`NATSClient.events()`).
public enum NATSEvent: Sendable, Equatable {
    case connected(ServerAddress)
    case disconnected(ServerAddress)
    case reconnected(ServerAddress)
    /// A server error that did not end the connection (e.g. a permissions violation), or a protocol failure that did.
    case error(NATSError)
    /// The server announced lame-duck mode: it will shut down soon.
    case lameDuckMode(ServerAddress)
    case closed
}
