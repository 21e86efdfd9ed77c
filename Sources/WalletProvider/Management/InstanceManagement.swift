import Foundation
import ServiceSupport
import Vapor

/// Wallet Instance management for the account a session opens (IT-Wallet 1.0+ `wallet-provider-endpoint.rst`
/// "Wallet Instance Management Endpoint"; the production backend's status resource). Its errors are that section's
/// table: 401 `unauthorized` without a valid session, 404 `not_found` for an instance nobody registered, 403
/// `forbidden` (retrieval) or `invalid_request` (revocation) for another account's instance.
struct InstanceManagement: Sendable {
    let provider: ProviderServices

    /// What the caller wants to do with the instance: the 403 code differs.
    enum Purpose { case retrieval, revocation }

    /// The account of the request's Bearer session.
    func account(_ request: Request) async throws(WireError) -> String {
        do {
            return try await provider.authenticate(request).account_id
        } catch where error.status == .unauthorized {
            throw WireError(.unauthorized, "unauthorized", "a valid account session (Bearer token) is required")
        }
    }

    /// The instance named in the path: its id (base64url SHA-256 of the hardware key tag), or the hardware key tag
    /// itself (the production client names instances by tag).
    func instance(_ reference: String, account: String, for purpose: Purpose) async throws(WireError) -> WalletInstanceRow {
        let found = try await provider.instances.find(id: reference)
        let row: WalletInstanceRow?
        if let found {
            row = found
        } else {
            row = try await provider.instances.find(id: InstanceStore.instanceID(hardwareKeyTag: reference))
        }
        guard let row else { throw WireError(.notFound, "not_found", "no wallet instance \(reference)") }
        guard row.account_id == account else {
            let code = purpose == .retrieval ? "forbidden" : "invalid_request"
            throw WireError(.forbidden, code, "the wallet instance belongs to another account")
        }
        return row
    }

    /// "current": the account's newest valid instance, else its newest (a wallet whose instance was revoked learns
    /// so here), else 404.
    func current(account: String) async throws(WireError) -> WalletInstanceRow {
        let rows = try await provider.instances.list(accountID: account)
        let newestValid = rows.last { !InstanceResource.isRevoked($0) }
        guard let row = newestValid ?? rows.last else {
            throw WireError(.notFound, "not_found", "this account has no wallet instance")
        }
        return row
    }

    /// Revokes through the provider's one revocation (`InstanceStore.revoke`). Idempotent, like the production
    /// `PUT …/status`: an instance of the account that is already revoked stays so and the answer is the same.
    func revoke(_ row: WalletInstanceRow, account: String) async throws(WireError) {
        guard !InstanceResource.isRevoked(row) else { return }
        _ = try await provider.instances.revoke(id: row.id, accountID: account, now: provider.configuration.clock.now())
    }
}
