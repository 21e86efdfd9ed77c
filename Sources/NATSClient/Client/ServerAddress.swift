/// One server of the pool: `nats://host:port`, `tls://host:port` (TLS required) or `host:port`; port 4222 by default.
public struct ServerAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// `tls://`: TLS is required on this server even if the client options did not ask for it.
    public var requiresTLS: Bool

    public init(host: String, port: Int = 4222, requiresTLS: Bool = false) {
        self.host = host
        self.port = port
        self.requiresTLS = requiresTLS
    }

    public init(_ url: String) throws(NATSError) {
        var rest = Substring(url.trimmingCharacters(in: .whitespaces))
        var tls = false
        if let scheme = rest.range(of: "://") {
            switch rest[..<scheme.lowerBound].lowercased() {
            case "nats": break
            case "tls": tls = true
            default: throw .invalidURL(url)
            }
            rest = rest[scheme.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        guard !rest.contains("@") else { throw .invalidURL(url) }  // credentials go in the options, not the URL
        var host = rest
        var port = 4222
        if rest.hasPrefix("[") {  // [IPv6]:port
            guard let close = rest.firstIndex(of: "]") else { throw .invalidURL(url) }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()) else { throw .invalidURL(url) }
                port = p
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int(rest[rest.index(after: colon)...]) else { throw .invalidURL(url) }
            port = p
        }
        guard !host.isEmpty, (1...65535).contains(port) else { throw .invalidURL(url) }
        self.init(host: String(host), port: port, requiresTLS: tls)
    }

    public var description: String { "\(requiresTLS ? "tls" : "nats")://\(host):\(port)" }
}
