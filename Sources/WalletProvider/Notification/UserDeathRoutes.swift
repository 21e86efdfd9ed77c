import Foundation
import ServiceSupport
import TesseraJOSE
import Vapor

/// `PATCH /wallet-instances` (`application/merge-patch+json`): the PDND e-service "Notify User Death". Answers
/// `207` with `{result: {revoked, not_found, already_revoked}, result_description}`, `404` when no named instance
/// exists; errors as the e-service's RFC 7807 problem details (`application/problem+json`) that also carry this
/// provider's `error` / `error_description`.
struct UserDeathRoutes: Sendable {
    let box: ServicesBox
    var provider: ProviderServices { get throws(WireError) { try box.get() } }

    func register(on routes: any RoutesBuilder) {
        routes.on(.PATCH, "wallet-instances", body: .collect(maxSize: "64kb")) { request async throws -> Response in
            do {
                return try await notify(request)
            } catch let error as WireError {
                return Self.problem(error)
            }
        }
    }

    private func notify(_ request: Request) async throws -> Response {
        let provider = try provider
        let body = request.body.data.map { Data($0.readableBytesView) } ?? Data()
        let type = request.headers.contentType
        guard type?.type == "application", type?.subType == "merge-patch+json" || type?.subType == "json" else {
            throw WireError(.badRequest, "invalid_request", "the body must be application/merge-patch+json")
        }
        let notification = try UserDeathNotification(json: (try? JSONValue.parse(body))?.objectValue)
        let now = provider.configuration.clock.now()
        let base = WalletAttestationRequest.withoutTrailingSlash(provider.baseURL)
        let audiences = Set([base, base + "/wallet-instances"] + (provider.configuration.pdndTrust?.audiences ?? []).map {
            WalletAttestationRequest.withoutTrailingSlash($0)
        })
        let call = try await PDNDCallAuthentication(
            request, body: body, trust: provider.configuration.pdndTrust, audiences: audiences, now: now)
        let outcome = try await notification.apply(on: provider.instances.db, call: call, now: now)
        guard !outcome.revoked.isEmpty || !outcome.alreadyRevoked.isEmpty else {
            throw WireError(.notFound, "not_found", "none of the wallet instances is known to this Wallet Provider")
        }
        var description = "\(outcome.revoked.count) revoked, \(outcome.alreadyRevoked.count) already revoked, "
            + "\(outcome.notFound.count) not found"
        if outcome.alsoRevoked > 0 { description += "; \(outcome.alsoRevoked) other instance(s) of the same user(s) revoked" }
        description += "; \(outcome.accountsDeleted) user account(s) deleted"
        return JSONBody.response([
            "result": [
                "revoked": .array(outcome.revoked.map { .string($0) }),
                "not_found": .array(outcome.notFound.map { .string($0) }),
                "already_revoked": .array(outcome.alreadyRevoked.map { .string($0) }),
            ],
            "result_description": .string(description),
        ], status: .multiStatus)
    }

    /// RFC 7807 with this provider's two members beside the standard ones.
    static func problem(_ error: WireError) -> Response {
        let body: JSONObject = [
            "title": .string(error.status.reasonPhrase), "status": .integer(Int64(error.status.code)),
            "detail": .string(error.description), "error": .string(error.code), "error_description": .string(error.description),
        ]
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/problem+json")
        headers.add(name: .cacheControl, value: "no-store")
        if error.status == .unauthorized {
            headers.add(name: .wwwAuthenticate, value: "Bearer error=\"\(error.code)\"")
        }
        return Response(status: error.status, headers: headers, body: .init(data: body.serialized()))
    }
}
