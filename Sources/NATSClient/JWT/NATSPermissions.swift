/// Subject permissions of a user (or an account's defaults), as in NATS JWT v2 `nats.pub` / `nats.sub`.
public struct NATSPermission: Codable, Sendable, Equatable {
    public var allow: [String]?
    public var deny: [String]?

    public init(allow: [String]? = nil, deny: [String]? = nil) {
        self.allow = allow
        self.deny = deny
    }
}

/// Permission for a responder to publish to reply subjects it received (`nats.resp`): at most `max` replies
/// within `ttl` nanoseconds.
public struct NATSResponsePermission: Codable, Sendable, Equatable {
    public var max: Int
    public var ttl: Int64

    public init(max: Int, ttl: Int64) {
        self.max = max
        self.ttl = ttl
    }
}

/// `-1` means "no limit" throughout the NATS JWT limits (absent would mean 0 to some readers, so it is always written).
public let natsNoLimit: Int64 = -1

/// Connection limits of a user (`nats.subs`, `nats.data`, `nats.payload`).
public struct NATSUserLimits: Sendable, Equatable {
    public var subscriptions: Int64
    public var data: Int64
    public var payload: Int64

    public init(subscriptions: Int64 = natsNoLimit, data: Int64 = natsNoLimit, payload: Int64 = natsNoLimit) {
        self.subscriptions = subscriptions
        self.data = data
        self.payload = payload
    }
}

/// Account limits (`nats.limits`): subscriptions, data, payload, imports, exports, wildcard exports,
/// connections and leaf node connections.
public struct NATSAccountLimits: Codable, Sendable, Equatable {
    public var subs: Int64
    public var data: Int64
    public var payload: Int64
    public var imports: Int64
    public var exports: Int64
    public var wildcards: Bool
    public var conn: Int64
    public var leaf: Int64

    public init(
        subs: Int64 = natsNoLimit, data: Int64 = natsNoLimit, payload: Int64 = natsNoLimit,
        imports: Int64 = natsNoLimit, exports: Int64 = natsNoLimit, wildcards: Bool = true,
        conn: Int64 = natsNoLimit, leaf: Int64 = natsNoLimit
    ) {
        self.subs = subs
        self.data = data
        self.payload = payload
        self.imports = imports
        self.exports = exports
        self.wildcards = wildcards
        self.conn = conn
        self.leaf = leaf
    }
}
