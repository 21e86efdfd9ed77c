import Foundation

/// The server's `INFO` (NATS client protocol, "INFO"): what the client needs from it. Unknown members are ignored.
public struct ServerInfo: Decodable, Sendable, Equatable {
    public var serverID: String
    public var serverName: String?
    public var version: String?
    public var proto: Int?
    public var headers: Bool?
    /// Largest payload (headers included) the server accepts in one message.
    public var maxPayload: Int
    public var tlsRequired: Bool?
    public var tlsAvailable: Bool?
    public var authRequired: Bool?
    /// Operator mode: the client signs this with its user nkey in CONNECT `sig`.
    public var nonce: String?
    /// Other servers of the cluster the client may reconnect to (`host:port`).
    public var connectURLs: [String]?
    /// Lame-duck mode: the server is about to shut down; reconnect elsewhere.
    public var lameDuckMode: Bool?

    enum CodingKeys: String, CodingKey {
        case serverID = "server_id", serverName = "server_name", version, proto, headers
        case maxPayload = "max_payload", tlsRequired = "tls_required", tlsAvailable = "tls_available"
        case authRequired = "auth_required", nonce, connectURLs = "connect_urls", lameDuckMode = "ldm"
    }

    public init(serverID: String, maxPayload: Int, headers: Bool? = true, nonce: String? = nil) {
        self.serverID = serverID
        self.maxPayload = maxPayload
        self.headers = headers
        self.nonce = nonce
    }
}
