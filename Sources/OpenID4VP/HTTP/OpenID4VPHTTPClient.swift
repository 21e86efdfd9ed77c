import Foundation

/// One HTTP request the wallet sends to a verifier: fetching a Request Object (§5.10) or posting an
/// Authorization Response (§8.2).
public struct OpenID4VPHTTPRequest: Sendable, Equatable {
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

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

    /// A POST of `application/x-www-form-urlencoded` pairs (§5.10, §8.2: UTF-8).
    public static func form(_ url: URL, _ pairs: [(String, String)], accept: String) -> OpenID4VPHTTPRequest {
        OpenID4VPHTTPRequest(
            method: .post, url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", accept)],
            body: Data(FormURLEncoding.encode(pairs).utf8))
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public static func == (lhs: OpenID4VPHTTPRequest, rhs: OpenID4VPHTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name.lowercased()):\($0.value)" } == rhs.headers.map { "\($0.name.lowercased()):\($0.value)" }
    }
}

/// The verifier's answer, as received.
public struct OpenID4VPHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The media type of `Content-Type` without parameters, lowercased.
    public var mediaType: String? {
        header("Content-Type").map {
            String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
    }

    /// §14.8: any 3xx is a redirect, which the wallet never follows.
    public var isRedirect: Bool { (300..<400).contains(status) }
}

/// The wallet's HTTP access, injected so tests run against in-process fakes and apps choose their stack.
///
/// Implementations MUST NOT follow redirects (§14.8): a 3xx is returned as a response, and the caller treats it
/// as an error. They enforce a body size limit and time-outs, and report failures as `httpTransport` /
/// `httpResponseTooLarge`.
public protocol OpenID4VPHTTPClient: Sendable {
    func send(_ request: OpenID4VPHTTPRequest) async throws(OpenID4VPError) -> OpenID4VPHTTPResponse
}
