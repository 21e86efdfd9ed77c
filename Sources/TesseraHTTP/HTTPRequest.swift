import Foundation

/// One HTTP request, as the toolkit's clients build it (OpenID4VP, the vault's ledger client, the Wallet Instance,
/// OpenID4VCI): the method, the URL, the header fields in order and the body.
public struct HTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"
    }

    public var method: Method
    public var url: URL
    /// Header fields in order (name, value).
    public var headers: [(name: String, value: String)]
    public var body: Data?

    public init(method: Method, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A POST of `application/x-www-form-urlencoded` pairs (UTF-8, RFC 6749 Appendix B).
    public static func form(_ url: URL, _ pairs: [(String, String)], accept: String) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", accept)],
            body: Data(FormURLEncoding.encode(pairs).utf8))
    }

    /// A request with an `application/json` body (already serialized by the caller's JSON encoder).
    public static func json(_ method: Method = .post, _ url: URL, body: Data, headers: [(name: String, value: String)] = []) -> HTTPRequest {
        HTTPRequest(method: method, url: url, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name.lowercased()):\($0.value)" } == rhs.headers.map { "\($0.name.lowercased()):\($0.value)" }
    }
}
