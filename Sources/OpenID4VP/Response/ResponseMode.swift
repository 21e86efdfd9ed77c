/// Response Modes this module implements for redirect-based invocations (§5.2, §8.2, §8.3.1; OAuth 2.0
/// Multiple Response Type Encoding Practices).
public enum ResponseMode: String, Sendable, Hashable, CaseIterable {
    /// HTTP POST of the form-encoded response to `response_uri` (§8.2).
    case directPost = "direct_post"
    /// `direct_post` with the response as an encrypted JWT in `response` (§8.3.1).
    case directPostJWT = "direct_post.jwt"
    /// Parameters in the fragment of `redirect_uri` (the default for `vp_token`, §5.6).
    case fragment
    /// Parameters in the query of `redirect_uri`.
    case query

    /// Whether the response goes to `response_uri` by HTTP POST.
    public var isDirectPost: Bool { self == .directPost || self == .directPostJWT }

    /// Whether the response is an encrypted JWT (§8.3).
    public var isEncrypted: Bool { self == .directPostJWT }
}
