import Foundation
import ServiceSupport
import TesseraJOSE
import Vapor

/// The 1.0+ management routes under `/wallet-instances` (Bearer account session): retrieval of all instances or one
/// (`GET`), revocation with `{"status":"REVOKED"}` by `PATCH` (the text), `POST` (the text's alternative) and the
/// production client's `PUT …/status`, and the production status resource `GET …/{id}/status`,
/// `GET /wallet-instances/current/status`. `POST /wallet-instances` itself is registration (Routes).
struct InstanceManagementRoutes: Sendable {
    let box: ServicesBox

    func register(on routes: any RoutesBuilder) {
        let instances = routes.grouped("wallet-instances")
        instances.get { request async throws -> Response in
            let management = try management
            let account = try await management.account(request)
            let rows = try await management.provider.instances.list(accountID: account)
            return Self.json(.array(rows.map { .object(InstanceResource.retrieval($0)) }))
        }
        instances.get("current", "status") { request async throws -> Response in
            let management = try management
            let account = try await management.account(request)
            return JSONBody.response(InstanceResource.status(try await management.current(account: account)))
        }
        instances.get(":id") { request async throws -> Response in
            JSONBody.response(InstanceResource.retrieval(try await retrieved(request)))
        }
        instances.get(":id", "status") { request async throws -> Response in
            JSONBody.response(InstanceResource.status(try await retrieved(request)))
        }
        for method: HTTPMethod in [.PATCH, .POST] {
            instances.on(method, ":id", body: .collect(maxSize: "16kb")) { request async throws -> Response in
                try await revoke(request)
            }
        }
        instances.on(.PUT, ":id", "status", body: .collect(maxSize: "16kb")) { request async throws -> Response in
            try await revoke(request)
        }
    }

    private var management: InstanceManagement { get throws(WireError) { InstanceManagement(provider: try box.get()) } }

    /// The instance of the path, for retrieval; the session is checked first (401 before anything about the
    /// instance is said).
    private func retrieved(_ request: Request) async throws(WireError) -> WalletInstanceRow {
        let management = try management
        let account = try await management.account(request)
        return try await management.instance(request.parameters.get("id") ?? "", account: account, for: .retrieval)
    }

    /// 401, then the body (400/422), then the instance (404/403), then the revocation: 204.
    private func revoke(_ request: Request) async throws(WireError) -> Response {
        let management = try management
        let account = try await management.account(request)
        try RevocationBody.check(request)
        let row = try await management.instance(request.parameters.get("id") ?? "", account: account, for: .revocation)
        try await management.revoke(row, account: account)
        return JSONBody.empty(.noContent)
    }

    /// A JSON array answer (the list of instances), `Cache-Control: no-store` as every answer here.
    static func json(_ value: JSONValue) -> Response {
        var headers = HTTPHeaders()
        headers.contentType = .json
        headers.add(name: .cacheControl, value: "no-store")
        return Response(status: .ok, headers: headers, body: .init(data: value.serialized()))
    }
}
