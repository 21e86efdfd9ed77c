import Foundation

/// One message from the server (NATS client protocol, server → client operations).
public enum ServerOperation: Sendable, Equatable {
    case info(ServerInfo)
    /// MSG or HMSG: a message for subscription `sid`.
    case message(InboundMessage)
    case ping
    case pong
    case ok
    /// `-ERR '<text>'`, quotes removed.
    case error(String)
}

/// A delivered message as parsed from MSG/HMSG, before it is routed to a subscription.
public struct InboundMessage: Sendable, Equatable {
    public var subject: String
    public var sid: UInt64
    public var replyTo: String?
    public var headers: NATSHeaders?
    public var status: NATSStatus?
    public var payload: Data
}
