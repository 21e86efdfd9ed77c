import Foundation
import ServiceSupport
import Vapor

/// `/vault/…`: the vault lifecycle (VaultLifecycleService says who may call what). Health is unauthenticated;
/// status, start and stop are device-signed with the user in `X-User-GUID`; terminate takes a `vault_terminate`
/// action token and the password.
extension LedgerRoutes {
    func registerVault(on routes: any RoutesBuilder, authentication: AuthenticationService) {
        let vault = routes.grouped("vault")
        let lifecycle = VaultLifecycleService(services: services, authentication: authentication)
        vault.get("health") { request async throws -> Response in
            try limit(request)
            return JSONBody.response(try await lifecycle.health())
        }
        vault.get("status") { request async throws -> Response in
            let user = try limitSigned(request)
            return JSONBody.response(try await lifecycle.status(userGUID: user, signed: Self.signed(request)))
        }
        vault.post("start") { request async throws -> Response in
            let user = try limitSigned(request)
            return JSONBody.response(try await lifecycle.start(userGUID: user, signed: Self.signed(request)))
        }
        vault.post("stop") { request async throws -> Response in
            let user = try limitSigned(request)
            return JSONBody.response(try await lifecycle.stop(userGUID: user, signed: Self.signed(request)))
        }
        vault.post("terminate") { request async throws -> Response in
            try limit(request)
            return JSONBody.response(try await lifecycle.terminate(bearer: Self.bearer(request), try body(request)))
        }
    }

    /// The per-address and per-user limits of a device-signed call; returns the user it names.
    private func limitSigned(_ request: Request) throws(WireError) -> String? {
        try limit(request)
        let user = request.headers.first(name: VaultLifecycleService.userHeader)
        // Only plausible guids are counted: the limiter's table must not grow with whatever a client sends.
        if let user, user.utf8.count <= 64, !services.limiter.allow("user:" + user, limit: services.configuration.perUserPerMinute) {
            throw WireError(.tooManyRequests, "rate_limited", "too many requests for this user: slow down")
        }
        return user
    }
}
