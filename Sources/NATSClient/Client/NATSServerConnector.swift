/// Connects to nats-server (operator mode): each connection is a `NATSClient` with the user's credentials.
public struct NATSServerConnector: NATSConnector {
    public let urls: [String]
    private let configure: @Sendable (inout NATSClientOptions) -> Void

    /// `configure` adjusts the options of every client (reconnect policy, TLS, timeouts) before it connects.
    public init(urls: [String], configure: @escaping @Sendable (inout NATSClientOptions) -> Void = { _ in }) {
        self.urls = urls
        self.configure = configure
    }

    public func connect(credentials: NATSCredentials, name: String) async throws -> any NATSConnection {
        var options = try NATSClientOptions(urls: urls, name: name, authentication: .credentials(credentials))
        configure(&options)
        let client = NATSClient(options: options)
        // A client whose first connect fails has already closed itself.
        try await client.connect()
        return client
    }
}
