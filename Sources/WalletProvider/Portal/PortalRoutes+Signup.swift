import Foundation
import ServiceSupport
import Vapor

/// Sign-up and TOTP enrolment: the account is created with its second factor pending, the enrolment page shows the
/// secret (Base32 and QR code), and the first valid code turns the factor on and logs the browser in.
extension PortalRoutes {
    func signupPage(_ request: Request) async throws -> Response {
        let provider = try self.provider
        return try Self.preLoginPage(request, provider) { csrf in SignupView.form(csrf: csrf) }
    }

    func signUp(_ request: Request) async throws -> Response {
        let provider = try self.provider
        let form = try FormBody(request)
        let csrf = try Self.checkPreLogin(request, form, provider)
        let email = try Self.text(form, "email").trimmingCharacters(in: .whitespaces)
        let password = try Self.text(form, "password")
        let repeated = try Self.text(form, "password_repeat")
        guard password == repeated else {
            return SignupView.form(csrf: csrf, email: email, error: "The two passwords differ.", status: .badRequest)
        }
        let created: AccountService.SignedUp
        do throws(WireError) {
            created = try await provider.accounts.signUp(email: email, password: password)
        } catch {
            guard error.status == .badRequest else { throw error }
            return SignupView.form(csrf: csrf, email: email, error: Self.sentence(error.description), status: .badRequest)
        }
        let ticket = EnrolmentTicket(key: provider.portalKey).issue(accountID: created.accountID, now: provider.configuration.clock.now())
        let response = PortalLayout.redirect("/portal/enrol")
        response.cookies[PortalCookies.enrolment] = PortalCookies(baseURL: provider.baseURL)
            .value(ticket, maxAge: Int(EnrolmentTicket.lifetime))
        return response
    }

    func enrolmentPage(_ request: Request) async throws -> Response {
        let provider = try self.provider
        guard let pending = try await pendingEnrolment(request, provider) else { return Self.enrolmentOver(provider) }
        return try Self.preLoginPage(request, provider) { csrf throws(WireError) in
            try SignupView.enrolment(pending.enrolment, csrf: csrf)
        }
    }

    func enrol(_ request: Request) async throws -> Response {
        let provider = try self.provider
        let form = try FormBody(request)
        let csrf = try Self.checkPreLogin(request, form, provider)
        guard let pending = try await pendingEnrolment(request, provider) else { return Self.enrolmentOver(provider) }
        let session: AccountService.Session
        do throws(WireError) {
            session = try await provider.accounts.confirmEnrolment(accountID: pending.accountID, code: try Self.text(form, "totp"))
        } catch {
            switch error.status {
            case .unauthorized:
                return try SignupView.enrolment(
                    pending.enrolment, csrf: csrf, error: "That code is not valid. Enter the code your app shows now.",
                    status: .unauthorized)
            case .tooManyRequests: return LoginView.locked()
            case .conflict: return Self.enrolmentOver(provider)
            default: throw error
            }
        }
        return Self.startSession(session, provider, redirectTo: "/portal/instances")
    }

    /// The account of the browser's enrolment ticket while its second factor is pending.
    private func pendingEnrolment(_ request: Request, _ provider: ProviderServices) async throws(WireError)
        -> (accountID: String, enrolment: AccountService.PendingEnrolment)?
    {
        let ticket = PortalCookies.read(PortalCookies.enrolment, from: request)
        guard let accountID = EnrolmentTicket(key: provider.portalKey).accountID(ticket, now: provider.configuration.clock.now()),
            let pending = try await provider.accounts.pendingEnrolment(accountID: accountID)
        else { return nil }
        return (accountID, pending)
    }

    /// No (more) enrolment for this browser: forget the ticket and go to the login, where a confirmed account logs in.
    private static func enrolmentOver(_ provider: ProviderServices) -> Response {
        let response = PortalLayout.redirect("/portal/login")
        response.cookies[PortalCookies.enrolment] = PortalCookies(baseURL: provider.baseURL).cleared()
        return response
    }
}
