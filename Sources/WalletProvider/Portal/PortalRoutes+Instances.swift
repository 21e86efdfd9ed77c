import Foundation
import ServiceSupport
import Vapor

/// The logged-in pages: the account's Wallet Instances, revoking one, and purging the account.
extension PortalRoutes {
    func instancesPage(_ request: Request) async throws -> Response {
        let provider = try self.provider
        guard let current = try await Self.loggedIn(request, provider) else { return PortalLayout.redirect("/portal/login") }
        return try await Self.instances(current.session, provider)
    }

    /// IT-Wallet WI REV from the account holder: the instance's key leaves the account, the wallet learns it online.
    func revoke(_ request: Request) async throws -> Response {
        let provider = try self.provider
        let (_, session) = try await Self.authorize(request, try FormBody(request), provider)
        let id = request.parameters.get("id") ?? ""
        guard try await provider.instances.revoke(id: id, accountID: session.account_id, now: provider.configuration.clock.now())
        else { throw WireError(.notFound, "not_found", "This account has no valid wallet instance with that id.") }
        return PortalLayout.redirect("/portal/instances")
    }

    /// Deletes every row of the account once the holder typed the account's e-mail address.
    func purge(_ request: Request) async throws -> Response {
        let provider = try self.provider
        let form = try FormBody(request)
        let (_, session) = try await Self.authorize(request, form, provider)
        guard let account = try await provider.accounts.store.find(id: session.account_id) else { throw Self.noSession }
        let typed = try Self.text(form, "confirm_email").trimmingCharacters(in: .whitespaces)
        guard typed == account.email else {
            return try await Self.instances(
                session, provider, error: "Type the account's e-mail address exactly to confirm the deletion.", status: .badRequest)
        }
        try await provider.accounts.store.purge(accountID: account.id)
        let response = MessageView.purged(email: account.email)
        response.cookies[PortalCookies.session] = PortalCookies(baseURL: provider.baseURL).cleared()
        return response
    }

    private static func instances(
        _ session: SessionRow, _ provider: ProviderServices, error: String? = nil, status: HTTPResponseStatus = .ok
    ) async throws(WireError) -> Response {
        guard let account = try await provider.accounts.store.find(id: session.account_id) else { throw noSession }
        let rows = try await provider.instances.list(accountID: account.id)
        return InstancesView.page(email: account.email, instances: rows, csrf: session.csrf_token, error: error, status: status)
    }
}
