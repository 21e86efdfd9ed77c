import Foundation
import MDoc
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

@testable import OpenID4VP

/// What a verifier builds with this module is what the wallet side reads.
@Suite struct VerifierSideTests {
    @Test func unsignedRequestByValueRoundTrip() async throws {
        let query = try DCQLQuery(json: Fixtures.object("dcql/value_matching_simple.json"))
        let request = try AuthorizationRequest(
            clientId: "redirect_uri:https://rp.example/cb", responseMode: .fragment, redirectURI: "https://rp.example/cb",
            nonce: VerifierRequests.freshValue(random: SeededRandomSource(seed: 3)), state: "s-1", dcqlQuery: query,
            clientMetadata: ["vp_formats_supported": ["dc+sd-jwt": [:]]])
        let uri = VerifierRequests.invocationURI(scheme: "haip-vp", request: request)
        #expect(uri.hasPrefix("haip-vp://?"))
        let resolved = try await resolve(uri, walletConfig())
        // In a URI, object parameters travel as JSON text (§5.1); typed, they are the same.
        #expect(resolved.request.parameters["dcql_query"] == .string(JSONValue.object(query.json).serializedString))
        #expect(resolved.request.clientMetadata == request.clientMetadata)
        #expect(resolved.dcqlQuery == query)
        #expect(resolved.destination == ResponseDestination(responseMode: .fragment, uri: "https://rp.example/cb", encryption: nil, state: "s-1"))
        #expect(try Base64URL.decode(resolved.nonce).count == 16)
    }

    @Test func builderChecksTheRules() {
        #expect(throws: OpenID4VPError.redirectURIWithDirectPost) {
            try AuthorizationRequest(
                clientId: "c", responseMode: .directPost, responseURI: "https://rp.example/r", redirectURI: "https://rp.example/cb",
                nonce: "n", dcqlQuery: try DCQLQuery(credentials: [try .sdJWTVC(id: "a", vctValues: ["t"])]))
        }
        #expect(throws: OpenID4VPError.missingDCQLQuery) {
            try AuthorizationRequest(clientId: "c", responseMode: .directPost, responseURI: "https://rp.example/r", nonce: "n")
        }
        #expect(throws: OpenID4VPError.invalidNonce) {
            try AuthorizationRequest(clientId: "c", responseMode: .directPost, responseURI: "https://rp.example/r", nonce: "n+1", scope: "x")
        }
    }

    @Test func storedSDJWTVCAdapts() throws {
        let world = try TestSDJWTWorld()
        guard case .sdJWTVC(let credential) = try world.credential() else { throw TestFailure("not an SD-JWT VC") }
        #expect(credential.vct == identityVCT)
        #expect(credential.hasCryptographicHolderBinding)
        // Every Disclosure applied: nested selectively disclosable claims are visible to DCQL.
        #expect(credential.claims["address"]?["street_address"] == "123 Main St")
        #expect(credential.claims["_sd"] == nil)
        // The issuer's x5c leaf names its issuer (the test root) by AuthorityKeyIdentifier.
        let aki = try #require(AuthorityKeyIdentifiers.of(world.issuerCertificate.certificate))
        #expect(credential.authorityKeyIdentifiers == [aki])
        #expect(throws: OpenID4VPError.self) { try SDJWTVCCredential(id: "x", compactSDJWT: "not an sd-jwt", holderKey: nil) }
    }
}
