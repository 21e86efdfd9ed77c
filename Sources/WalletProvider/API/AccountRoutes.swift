import Foundation
import ServiceSupport
import TesseraCore
import TesseraJOSE
import Vapor

/// The account API (JSON, Bearer session tokens): sign up, log in with password and TOTP, the account's Wallet
/// Instances (list, status, revoke, PID reports), and purge.
struct AccountRoutes: Sendable {
    let box: ServicesBox
    var provider: ProviderServices { get throws(WireError) { try box.get() } }

    func register(on api: any RoutesBuilder) {
        api.post("accounts") { request async throws -> Response in
            let body = try Self.json(request)
            let created = try await provider.accounts.signUp(
                email: try Self.string(body, "email"), password: try Self.string(body, "password"))
            return JSONBody.response(
                [
                    "account_id": .string(created.accountID),
                    "totp_secret": .string(TesseraCore.Base32.encode(created.totp.secret)),
                    "otpauth_uri": .string(created.provisioningURI),
                ], status: .created)
        }
        api.post("login") { request async throws -> Response in
            let body = try Self.json(request)
            let session = try await provider.accounts.logIn(
                email: try Self.string(body, "email"), password: try Self.string(body, "password"),
                code: try Self.string(body, "totp"))
            return JSONBody.response([
                "session_token": .string(session.token),
                "expires_at": .integer(Int64(session.expiresAt.timeIntervalSince1970)),
            ])
        }
        api.post("logout") { request async throws -> Response in
            _ = try await provider.authenticate(request)
            try await provider.accounts.logOut(token: ProviderServices.bearer(request) ?? "")
            return JSONBody.empty(.noContent)
        }
        api.post("account", "purge") { request async throws -> Response in
            let session = try await provider.authenticate(request)
            try await provider.accounts.store.purge(accountID: session.account_id)
            return JSONBody.empty(.noContent)
        }
        let instances = api.grouped("wallet-instances")
        instances.get { request async throws -> Response in
            let session = try await provider.authenticate(request)
            let rows = try await provider.instances.list(accountID: session.account_id)
            return JSONBody.response(["wallet_instances": .array(rows.map { .object(Self.describe($0)) })])
        }
        instances.get(":id") { request async throws -> Response in
            let session = try await provider.authenticate(request)
            return JSONBody.response(Self.describe(try await Self.instance(request, session, try provider)))
        }
        instances.post(":id", "revoke") { request async throws -> Response in
            let session = try await provider.authenticate(request)
            let id = request.parameters.get("id") ?? ""
            guard try await provider.instances.revoke(id: id, accountID: session.account_id, now: provider.configuration.clock.now())
            else { throw WireError(.notFound, "not_found", "no valid wallet instance \(id) in this account") }
            return JSONBody.empty(.noContent)
        }
        instances.post(":id", "pid") { request async throws -> Response in
            let session = try await provider.authenticate(request)
            let body = try Self.json(request)
            guard let status = PIDStatus(rawValue: try Self.string(body, "status")), status != .revoked else {
                throw WireError(.badRequest, "invalid_request", "status must be active or none")
            }
            let id = request.parameters.get("id") ?? ""
            guard try await provider.instances.setPID(id: id, accountID: session.account_id, status: status) else {
                throw WireError(.notFound, "not_found", "no valid wallet instance \(id) in this account")
            }
            return JSONBody.empty(.noContent)
        }
    }

    static func instance(_ request: Request, _ session: SessionRow, _ provider: ProviderServices) async throws(WireError) -> WalletInstanceRow {
        let id = request.parameters.get("id") ?? ""
        guard let row = try await provider.instances.find(id: id), row.account_id == session.account_id else {
            throw WireError(.notFound, "not_found", "no wallet instance \(id) in this account")
        }
        return row
    }

    static func describe(_ row: WalletInstanceRow) -> JSONObject {
        var object: JSONObject = [
            "id": .string(row.id),
            "platform": .string(row.platform),
            "status": .string(row.status),
            "pid_status": .string(row.pid_status),
            "created_at": .integer(Int64(row.created_at)),
        ]
        if let revoked = row.revoked_at { object["revoked_at"] = .integer(Int64(revoked)) }
        if let device = try? JSONValue.parse(row.device) { object["device"] = device }
        return object
    }

    static func json(_ request: Request) throws(WireError) -> JSONObject {
        guard let body = JSONBody.object(of: request) else {
            throw WireError(.badRequest, "invalid_request", "the body must be a JSON object (application/json)")
        }
        return body
    }

    static func string(_ body: JSONObject, _ name: String) throws(WireError) -> String {
        guard let value = body[name]?.stringValue, value.utf8.count <= 1024 else {
            throw WireError(.badRequest, "invalid_request", "\(name) must be a string")
        }
        return value
    }
}
