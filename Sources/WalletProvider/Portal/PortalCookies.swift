import Vapor

/// The portal's cookies and their attributes (RFC 6265 §4.1.2).
///
/// - `HttpOnly`: nothing but HTTP reads them (the portal runs no script at all; this also covers an injected one).
/// - `SameSite=Strict`: a page of another site cannot make the browser send them, so a forged cross-site form
///   arrives without a session (the CSRF tokens are the second, independent guard).
/// - `Path=/portal`: the JSON API never sees them; it only takes `Authorization: Bearer`.
/// - `Secure` follows the scheme of the provider's public base URL. That URL is what browsers talk to (TLS may end
///   at a proxy in front), so an https deployment never lets the session cookie travel in clear; the plain-http
///   loopback deployments of tests and demos (`http://127.0.0.1:PORT`) would never get a `Secure` cookie back from
///   most clients, which is why it is not set unconditionally.
struct PortalCookies: Sendable {
    /// The session token of the account API (what `POST /api/login` returns), so both share one session table.
    static let session = "tessera_session"
    /// The nonce of the pre-login double-submit CSRF token (`PreLoginCSRF`).
    static let preLogin = "tessera_prelogin"
    /// Which account's pending enrolment the browser may see (`EnrolmentTicket`).
    static let enrolment = "tessera_enrolment"

    let secure: Bool

    init(baseURL: String) { secure = baseURL.lowercased().hasPrefix("https://") }

    /// A cookie for the portal's paths; `maxAge` nil = until the browser closes.
    func value(_ string: String, maxAge: Int?) -> HTTPCookies.Value {
        HTTPCookies.Value(string: string, maxAge: maxAge, path: "/portal", isSecure: secure, isHTTPOnly: true, sameSite: .strict)
    }

    /// Tells the browser to forget a cookie (same path, so it replaces the one set).
    func cleared() -> HTTPCookies.Value { value("", maxAge: 0) }

    /// A cookie's value as the request carries it, or nil (missing, empty or oversized).
    static func read(_ name: String, from request: Request) -> String? {
        guard let value = request.cookies[name]?.string, !value.isEmpty, value.utf8.count <= 256 else { return nil }
        return value
    }
}
