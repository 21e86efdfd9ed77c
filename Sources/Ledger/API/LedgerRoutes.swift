import Foundation
import LedgerProtocol
import ServiceSupport
import TesseraJOSE
import Vapor

/// `/api/v1/…`: enrollment and authentication; `/vault/…`: the vault lifecycle (VaultRoutes). Every answer is JSON
/// with `Cache-Control: no-store`; every error `{error, error_description}`.
struct LedgerRoutes: Sendable {
    let services: LedgerServices

    func register(on routes: any RoutesBuilder) {
        let api = routes.grouped("api", "v1")
        let enrollment = EnrollmentService(services: services)
        let authentication = AuthenticationService(services: services)
        api.post("enroll", "start") { request async throws -> Response in
            try limit(request)
            return JSONBody.response(try await enrollment.start(try body(request)), status: .created)
        }
        api.post("enroll", "set-password") { request async throws -> Response in
            try limit(request)
            try await enrollment.setPassword(try body(request))
            return JSONBody.empty(.noContent)
        }
        api.post("enroll", "finalize") { request async throws -> Response in
            try limit(request)
            return JSONBody.response(try await enrollment.finalize(try body(request)), status: .created)
        }
        api.post("action", "request") { request async throws -> Response in
            try limit(request)
            let parsed = try body(request)
            // Only well-formed guids are counted: the limiter's table must not grow with whatever a client sends.
            if let user = parsed.json["user_guid"]?.stringValue, user.utf8.count <= 64,
                !services.limiter.allow("user:" + user, limit: services.configuration.perUserPerMinute)
            {
                throw WireError(.tooManyRequests, "rate_limited", "too many requests for this user: slow down")
            }
            return JSONBody.response(try await authentication.requestAction(parsed, signed: Self.signed(request)))
        }
        api.post("auth", "execute") { request async throws -> Response in
            try limit(request)
            return JSONBody.response(try await authentication.execute(bearer: Self.bearer(request), try body(request)))
        }
        registerVault(on: routes, authentication: authentication)
    }

    /// What the device signed: the three headers, and the method, path and body bytes as received.
    static func signed(_ request: Request) -> AuthenticationService.SignedRequest {
        AuthenticationService.SignedRequest(
            signature: request.headers.first(name: DeviceSignature.signatureHeader),
            timestamp: request.headers.first(name: DeviceSignature.timestampHeader),
            nonce: request.headers.first(name: DeviceSignature.nonceHeader),
            method: request.method.rawValue, path: request.url.path,
            body: request.body.data.map { Data($0.readableBytesView) } ?? Data())
    }

    func limit(_ request: Request) throws(WireError) {
        let address = request.remoteAddress?.ipAddress ?? "unknown"
        guard services.limiter.allow("ip:" + address, limit: services.configuration.perAddressPerMinute) else {
            throw WireError(.tooManyRequests, "rate_limited", "too many requests from this address: slow down")
        }
    }

    func body(_ request: Request) throws(WireError) -> LedgerBody {
        guard let json = JSONBody.object(of: request) else {
            throw WireError(.badRequest, "invalid_request", "the body must be a JSON object (application/json, at most 64 KiB)")
        }
        return LedgerBody(json: json)
    }

    static func bearer(_ request: Request) -> String? {
        guard let value = request.headers.first(name: .authorization), value.lowercased().hasPrefix("bearer ") else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
