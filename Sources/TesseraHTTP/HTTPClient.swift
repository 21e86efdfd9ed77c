/// HTTP access, injected so that tests run against in-process fakes and apps choose their stack
/// (`HTTPTransport.AsyncHTTPClientTransport` on async-http-client, or the app's own).
///
/// Implementations MUST NOT follow redirects (OpenID4VP §14.8, and no credential ever follows one): a 3xx is
/// returned as a response, and the caller decides. They enforce a body size limit and time-outs.
public protocol HTTPClient: Sendable {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}

/// Why an exchange produced no response.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Connecting, TLS, a time-out or the connection itself failed.
    case transport(String)
    /// The response body exceeds the client's limit.
    case responseTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .transport(let reason): return "HTTP exchange failed (\(reason))"
        case .responseTooLarge(let limit): return "HTTP response body exceeds \(limit) bytes"
        }
    }
}
