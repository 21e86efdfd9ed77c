import Crypto
import Foundation
import MDoc
import TesseraCore
import TesseraJOSE
import TesseraTrust
import Testing
import X509
import TesseraHTTP

@testable import OpenID4VP
import TesseraTrustTesting

/// A verifier as the wallet sees it: an x509_san_dns identity, its request-signing certificate, an ephemeral
/// response encryption key, and the Authorization Requests it sends.
struct TestVerifier {
    static let host = "verifier.example.org"
    static let responseURI = "https://verifier.example.org/response"
    static let requestURI = "https://verifier.example.org/request/abc"
    static let nonce = "n-0S6_WzA2Mj"
    static let state = "st-4f9a"

    let pki: VerifierPKI
    let leaf: IssuedCertificate
    let signingKey: JWSSigningKey
    let encryptionKey: JWEKeyAgreementKey
    let random = SeededRandomSource(seed: 99)

    init() throws {
        pki = try VerifierPKI()
        leaf = try pki.leaf(dnsNames: [Self.host])
        signingKey = try leaf.jwsKey()
        encryptionKey = try JWEKeyAgreementKey.generate(.p256, random: SeededRandomSource(seed: 5))
    }

    var leafDER: Data { get throws { try leaf.derEncoded() } }
    var clientId: String { "x509_san_dns:\(Self.host)" }

    /// `jwks` with the response encryption key (`use` enc, `alg` ECDH-ES, `kid` "enc-1").
    var encryptionJWK: JWK {
        var object = encryptionKey.publicJWK.jsonObject
        object["use"] = "enc"
        object["alg"] = "ECDH-ES"
        object["kid"] = "enc-1"
        return (try? JWK(json: object)) ?? encryptionKey.publicJWK
    }

    func clientMetadata(keys: [JSONValue]? = nil, enc: [String] = ["A128GCM", "A256GCM"]) -> JSONObject {
        [
            "jwks": ["keys": .array(keys ?? [.object(encryptionJWK.jsonObject)])],
            "encrypted_response_enc_values_supported": .array(enc.map(JSONValue.string)),
            "vp_formats_supported": ["dc+sd-jwt": [:], "mso_mdoc": [:]],
        ]
    }

    func dcql(_ name: String = "simple") throws -> DCQLQuery { try DCQLQuery(json: Fixtures.object("dcql/\(name).json")) }

    /// The request parameters; `edit` changes them before signing.
    func parameters(
        clientId: String? = nil, responseMode: ResponseMode = .directPostJWT, query: String = "simple",
        edit: (inout JSONObject) -> Void = { _ in }
    ) throws -> JSONObject {
        let request = try AuthorizationRequest(
            clientId: clientId ?? self.clientId, responseMode: responseMode, responseURI: Self.responseURI, nonce: Self.nonce,
            state: Self.state, dcqlQuery: try dcql(query), clientMetadata: clientMetadata())
        var parameters = request.requestObjectClaims()
        edit(&parameters)
        return parameters
    }

    /// A signed Request Object over `claims`: header `typ` (unless nil), `x5c` (the leaf unless given; none when
    /// empty), then `extra`.
    func requestObject(
        _ claims: JSONObject, key: JWSSigningKey? = nil, typ: String? = "oauth-authz-req+jwt", x5c: [Data]? = nil,
        extra: JSONObject = [:]
    ) throws -> String {
        var protected = JSONObject()
        if let typ { protected["typ"] = .string(typ) }
        let chain = try x5c ?? [leafDER]
        if !chain.isEmpty { protected["x5c"] = .array(chain.map { .string($0.base64EncodedString()) }) }
        for member in extra { protected[member.key] = member.value }
        return try CompactJWS.sign(header: protected, claims: claims, key: key ?? signingKey).compact
    }

    /// `openid4vp://?client_id=…&request=…`
    func byValue(_ requestObject: String, clientId: String? = nil) -> String {
        VerifierRequests.invocationURI(clientId: clientId ?? self.clientId, requestObject: requestObject)
    }

    /// `openid4vp://?client_id=…&request_uri=…[&request_uri_method=…]`
    func byReference(method: RequestURIMethod? = nil) -> String {
        VerifierRequests.invocationURI(clientId: clientId, requestURI: Self.requestURI, method: method)
    }
}

/// A wallet configuration with the verifier's root as anchor, pinned clock and seeded randomness.
func walletConfig(
    _ verifier: TestVerifier? = nil, http: any HTTPClient = FakeHTTPClient.offline,
    edit: (inout WalletConfiguration) -> Void = { _ in }
) -> WalletConfiguration {
    var config = WalletConfiguration(
        httpClient: http, clock: FixedClock(TestClock.now), random: SeededRandomSource(seed: 11),
        verifierTrustAnchors: verifier?.pki.anchors ?? [])
    edit(&config)
    return config
}

/// parse + resolve.
func resolve(_ uri: String, _ config: WalletConfiguration) async throws(OpenID4VPError) -> ResolvedAuthorizationRequest {
    let parsed = try await parseAuthorizationRequest(requestUri: uri, walletConfig: config)
    return try await resolveAuthorizationRequest(parsed, walletConfig: config)
}
