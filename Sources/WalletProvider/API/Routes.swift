import Foundation
import OpenID4VP
import ServiceSupport
import TesseraJOSE
import Vapor

/// The provider's HTTP surface: federation metadata, nonce, registration and token endpoints for Wallet
/// Instances, and the account API the wallet app (and the portal) use.
struct Routes: Sendable {
    let box: ServicesBox
    var provider: ProviderServices { get throws(WireError) { try box.get() } }

    func register(on routes: any RoutesBuilder) {
        routes.get(".well-known", "openid-federation") { _ async throws -> Response in
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: EntityConfigurationIssuer.mediaType)
            return Response(status: .ok, headers: headers, body: .init(string: try provider.entityConfiguration.current()))
        }
        routes.get("nonce") { _ async throws -> Response in
            JSONBody.response(["nonce": .string(try await provider.issueNonce())])
        }
        routes.on(.POST, "wallet-instance", body: .collect(maxSize: "256kb")) { request async throws -> Response in
            let account = try await provider.authenticate(request)
            guard let json = JSONBody.object(of: request) else {
                throw WireError(.badRequest, "bad_request", "the body must be a JSON object (application/json)")
            }
            try await provider.registration.register(RegistrationService.Request(json: json), accountID: account.account_id)
            return JSONBody.empty(.noContent)
        }
        routes.on(.POST, "token", body: .collect(maxSize: "256kb")) { request async throws -> Response in
            let form = try FormBody(request)
            let jwt = try await provider.token.issue(grantType: form["grant_type"], assertion: form["assertion"])
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: WalletAttestation.mediaType)
            headers.add(name: .cacheControl, value: "no-store")
            return Response(status: .ok, headers: headers, body: .init(string: jwt))
        }
        routes.get("openapi.json") { _ -> Response in
            var headers = HTTPHeaders()
            headers.contentType = .json
            return Response(status: .ok, headers: headers, body: .init(string: OpenAPIDocument.json))
        }
        AccountRoutes(box: box).register(on: routes.grouped("api"))
        PortalRoutes(box: box).register(on: routes.grouped("portal"))
    }
}

/// An `application/x-www-form-urlencoded` body (RFC 6749 §3.2: each parameter at most once).
struct FormBody: Sendable {
    private var values: [String: String] = [:]

    init(_ request: Request) throws(WireError) {
        guard request.headers.contentType?.type == "application",
            request.headers.contentType?.subType == "x-www-form-urlencoded"
        else { throw WireError(.badRequest, "invalid_request", "the body must be application/x-www-form-urlencoded") }
        let text = request.body.data.map { String(buffer: $0) } ?? ""
        do {
            for pair in try FormURLEncoding.decode(text) { values[pair.name] = pair.value }
        } catch {
            throw WireError(.badRequest, "invalid_request", "the form body is not well-formed or repeats a parameter")
        }
    }

    subscript(name: String) -> String? { values[name] }
}
