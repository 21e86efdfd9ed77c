import Foundation
import ServiceSupport
import TesseraCore
import Vapor

/// The Wallet Provider's web portal: server-rendered HTML with no script. Sign-up with TOTP enrolment, login with
/// both factors, the account's Wallet Instances with revoke, log out and purge. It runs on the services of the JSON
/// API under /api and on the same session table; the session token travels in a cookie instead of a Bearer header.
struct PortalRoutes: Sendable {
    let box: ServicesBox
    var provider: ProviderServices { get throws(WireError) { try box.get() } }

    func register(on routes: any RoutesBuilder) {
        let portal = routes.grouped(PortalMiddleware())
        portal.get { request async throws -> Response in
            let provider = try self.provider
            return PortalLayout.redirect(try await Self.loggedIn(request, provider) == nil ? "/portal/login" : "/portal/instances")
        }
        portal.get("signup") { request async throws -> Response in try await signupPage(request) }
        portal.post("signup") { request async throws -> Response in try await signUp(request) }
        portal.get("enrol") { request async throws -> Response in try await enrolmentPage(request) }
        portal.post("enrol") { request async throws -> Response in try await enrol(request) }
        portal.get("login") { request async throws -> Response in try await loginPage(request) }
        portal.post("login") { request async throws -> Response in try await logIn(request) }
        portal.post("logout") { request async throws -> Response in try await logOut(request) }
        portal.get("instances") { request async throws -> Response in try await instancesPage(request) }
        portal.post("instances", ":id", "revoke") { request async throws -> Response in try await revoke(request) }
        portal.post("account", "purge") { request async throws -> Response in try await purge(request) }
        // Unknown portal paths and methods get an HTML 404 with the portal's headers, not the API's JSON one.
        for method in [HTTPMethod.GET, .POST, .PUT, .PATCH, .DELETE, .OPTIONS] {
            portal.on(method, "**") { _ async throws -> Response in throw WireError(.notFound, "not_found", "There is no such page.") }
        }
    }

    // MARK: Shared by the handlers

    /// 403 for a form whose CSRF token is missing or wrong.
    static let forgedForm = WireError(
        .forbidden, "invalid_request", "The form could not be verified (CSRF check failed). Reload the page and try again.")
    static let noSession = WireError(.forbidden, "invalid_request", "Your session has ended. Log in again.")

    /// The cookie's live session and its token, or nil.
    static func loggedIn(_ request: Request, _ provider: ProviderServices) async throws(WireError) -> (token: String, session: SessionRow)? {
        guard let token = PortalCookies.read(PortalCookies.session, from: request),
            let session = try await provider.accounts.session(token: token)
        else { return nil }
        return (token, session)
    }

    /// A logged-in form post: a live session cookie, and the form's copy of that session's `csrf_token` (which a
    /// page of another origin cannot read), compared in constant time.
    static func authorize(_ request: Request, _ form: FormBody, _ provider: ProviderServices) async throws(WireError)
        -> (token: String, session: SessionRow)
    {
        guard let current = try await loggedIn(request, provider) else { throw noSession }
        guard let field = form[PreLoginCSRF.fieldName],
            ConstantTime.equal(Array(field.utf8), Array(current.session.csrf_token.utf8))
        else { throw forgedForm }
        return current
    }

    /// A page shown before login, with the pre-login CSRF field; the nonce cookie is set when the browser has none.
    static func preLoginPage(
        _ request: Request, _ provider: ProviderServices, _ render: (String) throws(WireError) -> Response
    ) throws(WireError) -> Response {
        let existing = PortalCookies.read(PortalCookies.preLogin, from: request).flatMap { PreLoginCSRF.isWellFormed($0) ? $0 : nil }
        let nonce = existing ?? PreLoginCSRF.newNonce(provider.configuration.random)
        let field = PreLoginCSRF(key: provider.portalKey).field(nonce: nonce, now: provider.configuration.clock.now())
        let response = try render(field)
        if existing == nil {
            response.cookies[PortalCookies.preLogin] = PortalCookies(baseURL: provider.baseURL).value(nonce, maxAge: nil)
        }
        return response
    }

    /// A form posted before login: its CSRF field must be bound to the browser's nonce cookie. Returns the field,
    /// which a re-rendered form carries again.
    static func checkPreLogin(_ request: Request, _ form: FormBody, _ provider: ProviderServices) throws(WireError) -> String {
        let field = form[PreLoginCSRF.fieldName]
        guard let field, PreLoginCSRF(key: provider.portalKey).check(
            field: field, nonce: PortalCookies.read(PortalCookies.preLogin, from: request), now: provider.configuration.clock.now())
        else { throw forgedForm }
        return field
    }

    /// A text field of the form ("" when absent), at most 1 KiB.
    static func text(_ form: FormBody, _ name: String) throws(WireError) -> String {
        let value = form[name] ?? ""
        guard value.utf8.count <= 1024 else { throw WireError(.badRequest, "invalid_request", "The field \(name) is too long.") }
        return value
    }

    /// A service's message as a sentence for a page ("the password must…" → "The password must….").
    static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst() + (text.hasSuffix(".") ? "" : ".")
    }

    /// Opens the browser session: the API's session token in the session cookie, for as long as the session lives.
    static func startSession(_ session: AccountService.Session, _ provider: ProviderServices, redirectTo path: String) -> Response {
        let cookies = PortalCookies(baseURL: provider.baseURL)
        let response = PortalLayout.redirect(path)
        let lifetime = max(0, Int(session.expiresAt.timeIntervalSince(provider.configuration.clock.now())))
        response.cookies[PortalCookies.session] = cookies.value(session.token, maxAge: lifetime)
        response.cookies[PortalCookies.enrolment] = cookies.cleared()
        return response
    }
}
