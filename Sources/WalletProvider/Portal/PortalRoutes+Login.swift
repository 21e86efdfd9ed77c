import Foundation
import ServiceSupport
import Vapor

/// Log in with password and TOTP code together (`AccountService.logIn`: one answer for every wrong factor, lockout
/// after five failures), and log out.
extension PortalRoutes {
    func loginPage(_ request: Request) async throws -> Response {
        let provider = try self.provider
        if try await Self.loggedIn(request, provider) != nil { return PortalLayout.redirect("/portal/instances") }
        return try Self.preLoginPage(request, provider) { csrf in LoginView.form(csrf: csrf) }
    }

    func logIn(_ request: Request) async throws -> Response {
        let provider = try self.provider
        let form = try FormBody(request)
        let csrf = try Self.checkPreLogin(request, form, provider)
        let email = try Self.text(form, "email").trimmingCharacters(in: .whitespaces)
        let session: AccountService.Session
        do throws(WireError) {
            session = try await provider.accounts.logIn(
                email: email, password: try Self.text(form, "password"),
                code: try Self.text(form, "totp").trimmingCharacters(in: .whitespaces))
        } catch {
            switch error.status {
            case .tooManyRequests: return LoginView.locked()
            case .unauthorized: return LoginView.form(csrf: csrf, email: email, error: LoginView.refused, status: .unauthorized)
            default: throw error
            }
        }
        // A new token at every login (never one the browser brought along), so a planted cookie cannot become a session.
        return Self.startSession(session, provider, redirectTo: "/portal/instances")
    }

    func logOut(_ request: Request) async throws -> Response {
        let provider = try self.provider
        let (token, _) = try await Self.authorize(request, try FormBody(request), provider)
        try await provider.accounts.logOut(token: token)
        let response = PortalLayout.redirect("/portal/login")
        response.cookies[PortalCookies.session] = PortalCookies(baseURL: provider.baseURL).cleared()
        return response
    }
}
