import NIOSSL
import TesseraCore

/// How a `NATSClient` connects, authenticates and recovers.
public struct NATSClientOptions: Sendable {
    /// The server pool, tried in order; servers the cluster announces (INFO `connect_urls`) are added to it.
    public var servers: [ServerAddress]
    /// Sent in CONNECT `name` (shows in the server's monitoring).
    public var name: String?
    public var authentication: Authentication
    /// TLS for every connection (`nil`: plain TCP unless a server is `tls://` or requires TLS, which then fails).
    public var tls: TLSConfiguration?
    /// Receive our own publications on matching subscriptions (CONNECT `echo`).
    public var echo = true

    /// Reconnect attempts after a connection is lost (each try of one server counts); `nil` retries forever.
    public var maxReconnectAttempts: Int? = 60
    /// First reconnect delay; it doubles per consecutive failure up to `maxReconnectWait`.
    public var reconnectWait: Duration = .milliseconds(100)
    public var maxReconnectWait: Duration = .seconds(2)
    /// Each delay is scaled by a random factor in 1 ± `reconnectJitter` (drawn from `random`).
    public var reconnectJitter = 0.25
    public var connectTimeout: Duration = .seconds(2)

    /// Bytes of messages accepted but not yet confirmed by the server (written and acknowledged by a PONG). While
    /// connected a full buffer makes `publish` wait for the server; while disconnected it makes `publish` throw
    /// `outboundBufferFull`.
    public var outboundBufferSize = 8 * 1024 * 1024
    /// Client keep-alive: a PING every `pingInterval`; with `maxPingsOut` PINGs unanswered the connection is stale
    /// and is dropped (then reconnected).
    public var pingInterval: Duration = .seconds(120)
    public var maxPingsOut = 2
    public var requestTimeout: Duration = .seconds(5)
    /// Longest control line accepted from the server.
    public var maxControlLine = 64 * 1024

    /// Inbox prefixes and reconnect jitter.
    public var random: any RandomSource = SystemRandomSource()

    public enum Authentication: Sendable {
        case none
        case token(String)
        case userPassword(user: String, password: String)
        /// Operator mode: the user JWT in CONNECT and the server's nonce signed by the user's seed.
        case credentials(NATSCredentials)
    }

    public init(servers: [ServerAddress], name: String? = nil, authentication: Authentication = .none) {
        self.servers = servers
        self.name = name
        self.authentication = authentication
    }

    public init(urls: [String], name: String? = nil, authentication: Authentication = .none) throws(NATSError) {
        var servers: [ServerAddress] = []
        for url in urls { servers.append(try ServerAddress(url)) }
        self.init(servers: servers, name: name, authentication: authentication)
    }
}
