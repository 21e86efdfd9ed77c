import Foundation
import HolderKit
import OpenID4VP
import TesseraCore
import VerifierService

/// A wallet's response to one transaction, prepared once so it can be posted several times and to either
/// instance (SingleVerdictTests, VerifierScaleOutTests).
struct PreparedResponse {
    let request: ResolvedAuthorizationRequest
    let body: String

    init(fixture: ServiceFixture, requestURI: String) async throws {
        try await self.init(walletConfig: fixture.walletConfig(), credentials: try fixture.credentials(), requestURI: requestURI)
    }

    /// The wallet resolves the request (fetching the Request Object through `walletConfig`'s HTTP client) and
    /// answers it with `credentials`.
    init(walletConfig config: WalletConfiguration, credentials: [WalletCredential], requestURI: String) async throws {
        request = try await resolveAuthorizationRequest(
            try await parseAuthorizationRequest(requestUri: requestURI, walletConfig: config), walletConfig: config)
        let response = try await createAuthorizationResponse(
            request: request, selectedCredentials: try request.match(credentials).preferredSelection(), walletConfig: config)
        body = try ResponseBody.encode(response, for: request, random: SystemRandomSource())
    }

    /// The response URI as the load balancer would forward it to `instance` (same path, that instance's port).
    func responseURI(on instance: VerifierServer) throws -> String {
        guard var components = URLComponents(string: request.destination.uri) else {
            throw FixtureError("the response URI does not parse: \(request.destination.uri)")
        }
        components.port = instance.port
        guard let uri = components.string, uri != request.destination.uri else {
            throw FixtureError("cannot point \(request.destination.uri) at port \(instance.port)")
        }
        return uri
    }
}
