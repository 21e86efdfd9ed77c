import Foundation
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
        // `/wallet-instance`: the IT-Wallet 0.7–0.9 texts; `/wallet-instances`: the production client and 1.0.
        for path in ["wallet-instance", "wallet-instances"] {
            routes.on(.POST, PathComponent(stringLiteral: path), body: .collect(maxSize: "256kb")) { request async throws -> Response in
                let account = try await provider.authenticate(request)
                guard let json = JSONBody.object(of: request) else {
                    throw WireError(.badRequest, "bad_request", "the body must be a JSON object (application/json)")
                }
                try await provider.registration.register(RegistrationService.Request(json: json), accountID: account.account_id)
                return JSONBody.empty(.noContent)
            }
        }
        routes.on(.POST, "token", body: .collect(maxSize: "256kb")) { request async throws -> Response in
            let grant = try TokenGrant(request)
            let jwt = try await provider.token.issue(grantType: grant.grantType, assertion: grant.assertion)
            // The spec answers the form with the JWT itself; the production client, which posts JSON, reads
            // `{"wallet_attestation": …}` (io-react-native-wallet since 0.15.3, io-wallet's `/token`).
            guard grant.isJSON else {
                var headers = HTTPHeaders()
                headers.replaceOrAdd(name: .contentType, value: WalletAttestation.mediaType)
                headers.add(name: .cacheControl, value: "no-store")
                return Response(status: .ok, headers: headers, body: .init(string: jwt))
            }
            return JSONBody.response(["wallet_attestation": .string(jwt)])
        }
        // IT-Wallet 0.9.3: `{"assertion": war+jwt}` → the `wallet-attestation+jwt` itself (`application/jwt`).
        routes.on(.POST, "wallet-attestation", body: .collect(maxSize: "256kb")) { request async throws -> Response in
            let jwt = try await provider.token.walletAttestation(assertion: try AttestationRequestBody.assertion(of: request, .json))
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: WalletAttestation.mediaType)
            headers.add(name: .cacheControl, value: "no-store")
            return Response(status: .ok, headers: headers, body: .init(string: jwt))
        }
        // IT-Wallet 1.0: `{"assertion": wp-war+jwt}` → `{"wallet_attestations": [{format, wallet_attestation}, …]}`.
        routes.on(.POST, "wallet-attestations", body: .collect(maxSize: "256kb")) { request async throws -> Response in
            JSONBody.response(try await provider.token.walletAttestations(
                assertion: try AttestationRequestBody.assertion(of: request, .json)))
        }
        routes.get("openapi.json") { _ -> Response in
            var headers = HTTPHeaders()
            headers.contentType = .json
            return Response(status: .ok, headers: headers, body: .init(string: OpenAPIDocument.json))
        }
        AttestationRoutes(box: box).register(on: routes)
        InstanceManagementRoutes(box: box).register(on: routes)
        StatusListRoutes(box: box).register(on: routes)
        AccountRoutes(box: box).register(on: routes.grouped("api"))
        PortalRoutes(box: box).register(on: routes.grouped("portal"))
    }
}

/// The `/token` request: an `application/x-www-form-urlencoded` form (RFC 6749 §3.2, the IT-Wallet 0.7–0.9 texts;
/// each parameter at most once) or the JSON object `{"grant_type", "assertion"}` the production client posts
/// (io-react-native-wallet 0.7.1 client, io-wallet's `/token`). Nothing else is guessed at.
struct TokenGrant: Sendable {
    let grantType: String?
    let assertion: String?
    let isJSON: Bool

    init(_ request: Request) throws(WireError) {
        let type = request.headers.contentType
        if type?.type == "application", type?.subType == "json" {
            guard let json = JSONBody.object(of: request), Set(json.keys).isSubset(of: ["grant_type", "assertion"]) else {
                throw WireError(.badRequest, "invalid_request", "the JSON body must be {\"grant_type\", \"assertion\"}")
            }
            grantType = json["grant_type"]?.stringValue
            assertion = json["assertion"]?.stringValue
            isJSON = true
            return
        }
        guard type?.type == "application", type?.subType == "x-www-form-urlencoded" else {
            throw WireError(.badRequest, "invalid_request", "the body must be application/x-www-form-urlencoded or application/json")
        }
        let form = try FormBody(request)
        grantType = form["grant_type"]
        assertion = form["assertion"]
        isJSON = false
    }
}
