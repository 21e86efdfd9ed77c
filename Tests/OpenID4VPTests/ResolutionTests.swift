import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import TesseraHTTP
import Testing
import X509

@testable import OpenID4VP

/// `resolveAuthorizationRequest`: Client Identifier Prefixes (§5.9.3), request rules (§5–§8), transaction data,
/// response encryption key selection, and when error responses may be sent.
@Suite struct ResolutionTests {
    let verifier: TestVerifier

    init() throws { verifier = try TestVerifier() }

    func signedURI(_ parameters: JSONObject, clientId: String? = nil, key: JWSSigningKey? = nil, x5c: [Data]? = nil, extra: JSONObject = [:]) throws -> String {
        verifier.byValue(try verifier.requestObject(parameters, key: key, x5c: x5c, extra: extra), clientId: clientId)
    }

    /// Parameters in the URI (unsigned request, §5.4 option 1).
    func unsignedURI(_ parameters: JSONObject) -> String {
        "openid4vp://?" + FormURLEncoding.encode(parameters.map { member in
            (member.key, member.value.stringValue ?? member.value.serializedString)
        })
    }

    // MARK: x509_san_dns / x509_hash

    @Test func untrustedCertificateChain() async throws {
        let uri = try signedURI(try verifier.parameters())
        let config = walletConfig(verifier) { $0.verifierTrustAnchors = [] }
        await expectError({ try await resolve(uri, config) }) {
            if case .verifierCertificateUntrusted(let failures) = $0 { return !failures.isEmpty }
            return false
        }
        // Under allowUntrusted the request resolves, flagged, without a display name, and gets no error responses.
        let lenient = walletConfig(verifier) {
            $0.verifierTrustAnchors = []
            $0.verifierTrustPolicy = .allowUntrusted
        }
        let resolved = try await resolve(uri, lenient)
        #expect(resolved.verifier.clientIdValid == false)
        #expect(resolved.verifier.displayName == nil)
        #expect(resolved.verifier.trustRoot == nil)
        #expect(resolved.verifier.clientIdValidationErrors.count == 1)
        #expect(!resolved.verifier.isAuthenticated)
        let parsed = try await parseAuthorizationRequest(requestUri: uri, walletConfig: lenient)
        #expect(await errorResponseDestination(for: parsed, walletConfig: lenient) == nil)
        await expectError(.errorResponseNotAllowed) {
            try await submitAuthorizationResponse(
                resolvedRequest: resolved, response: .error(AuthorizationErrorResponse(error: .accessDenied)), walletConfig: lenient)
        }
    }

    @Test func sanMismatch() async throws {
        let other = try verifier.pki.leaf(dnsNames: ["other.example.org"])
        let uri = try signedURI(try verifier.parameters(), key: try other.jwsKey(), x5c: [try other.derEncoded()])
        await expectError(.x509SANMismatch(TestVerifier.host)) { try await resolve(uri, walletConfig(verifier)) }
    }

    @Test func responseURIHostMustMatchDNSName() async throws {
        let uri = try signedURI(try verifier.parameters { $0["response_uri"] = "https://elsewhere.example/response" })
        await expectError(.responseURINotAllowed("host differs from the x509_san_dns Client Identifier")) {
            try await resolve(uri, walletConfig(verifier))
        }
        // A Client Identifier the wallet trusts may choose any response URI (§5.9.3).
        let trusting = walletConfig(verifier) { $0.trustedClientIds = [verifier.clientId] }
        #expect(try await resolve(uri, trusting).destination.uri == "https://elsewhere.example/response")
    }

    @Test func x5cMissing() async throws {
        let uri = try signedURI(try verifier.parameters(), x5c: [])
        await expectError(.invalidVerifierCertificate("RFC 7515 §4.1.6: invalid x5c (no x5c header)")) { try await resolve(uri, walletConfig(verifier)) }
    }

    @Test func x509Hash() async throws {
        let clientId = VerifierRequests.x509HashClientId(leafCertificateDER: try verifier.leafDER)
        let uri = try signedURI(try verifier.parameters(clientId: clientId), clientId: clientId)
        let resolved = try await resolve(uri, walletConfig(verifier))
        #expect(resolved.verifier.clientIdPrefix == .x509Hash)
        #expect(resolved.verifier.displayName == "Example Verifier")
        let other = try verifier.pki.leaf(dnsNames: [])
        let wrongId = VerifierRequests.x509HashClientId(leafCertificateDER: try other.derEncoded())
        let wrong = try signedURI(try verifier.parameters(clientId: wrongId), clientId: wrongId)
        await expectError(.x509HashMismatch) { try await resolve(wrong, walletConfig(verifier)) }
    }

    @Test func x509PrefixRequiresSignedRequest() async throws {
        let uri = unsignedURI(try verifier.parameters())
        await expectError(.unsignedRequestNotAllowed(prefix: "x509_san_dns")) { try await resolve(uri, walletConfig(verifier)) }
    }

    // MARK: Prefix support

    @Test func invalidClientIdPrefix() async throws {
        for (clientId, prefix) in [("unknown_prefix:abc", "unknown_prefix"), ("origin:https://rp.example", "origin"),
                                   ("openid_federation:https://rp.example", "openid_federation")] {
            let uri = try signedURI(try verifier.parameters(clientId: clientId), clientId: clientId)
            await expectError(.unsupportedClientIdPrefix(prefix)) { try await resolve(uri, walletConfig(verifier)) }
        }
        let restricted = walletConfig(verifier) { $0.supportedClientIdPrefixes = [.x509Hash] }
        await expectError(.unsupportedClientIdPrefix("x509_san_dns")) {
            try await resolve(try signedURI(try verifier.parameters()), restricted)
        }
        #expect(OpenID4VPError.unsupportedClientIdPrefix("x").errorCode == .invalidRequest)
    }

    // MARK: pre-registered

    func registered(signingKeys: [JWK] = [], metadata: JSONObject? = nil) -> WalletConfiguration {
        walletConfig(verifier) {
            $0.preRegisteredClients = ["my-verifier": PreRegisteredClient(
                clientId: "my-verifier", displayName: "My Verifier", logoURI: "https://verifier.example.org/logo.png",
                redirectURIs: [TestVerifier.responseURI], requestSigningKeys: signingKeys,
                metadata: metadata ?? verifier.clientMetadata())]
        }
    }

    @Test func preRegisteredClient() async throws {
        let parameters = try verifier.parameters(clientId: "my-verifier") { $0["client_metadata"] = nil }
        let resolved = try await resolve(unsignedURI(parameters), registered())
        #expect(resolved.verifier.clientIdPrefix == .preRegistered)
        #expect(resolved.verifier.displayName == "My Verifier")
        #expect(resolved.verifier.logoUri == "https://verifier.example.org/logo.png")
        #expect(resolved.verifier.trustRoot == .preRegistration)
        // The wallet's metadata is used: its jwks give the encryption key.
        #expect(resolved.destination.encryption?.key.kid == "enc-1")
        // Signed with a registered key.
        let key = verifier.signingKey.publicJWK.with(kid: "sig-1")
        let signed = try signedURI(parameters, clientId: "my-verifier", x5c: [], extra: ["kid": "sig-1"])
        #expect(try await resolve(signed, registered(signingKeys: [key])).verifier.isAuthenticated)
    }

    @Test func preRegisteredClientSendingMetadata() async throws {
        let parameters = try verifier.parameters(clientId: "my-verifier")
        await expectError(.clientMetadataWithPreRegisteredClient) { try await resolve(unsignedURI(parameters), registered()) }
        #expect(OpenID4VPError.clientMetadataWithPreRegisteredClient.errorCode == .invalidClient)
    }

    @Test func preRegisteredNegatives() async throws {
        let unknown = try verifier.parameters(clientId: "stranger") { $0["client_metadata"] = nil }
        await expectError(.unknownClient("stranger")) { try await resolve(unsignedURI(unknown), registered()) }
        let elsewhere = try verifier.parameters(clientId: "my-verifier") {
            $0["client_metadata"] = nil
            $0["response_uri"] = "https://verifier.example.org/other"
        }
        await expectError(.responseURINotAllowed("not one of the client's URIs")) { try await resolve(unsignedURI(elsewhere), registered()) }
    }

    // MARK: redirect_uri

    @Test func redirectURIPrefix() async throws {
        let clientId = "redirect_uri:" + TestVerifier.responseURI
        let parameters = try verifier.parameters(clientId: clientId, responseMode: .directPost) { $0["response_uri"] = nil }
        let config = walletConfig(verifier)
        let resolved = try await resolve(unsignedURI(parameters), config)
        // The identifier supplies the response URI; the verifier is never authenticated.
        #expect(resolved.destination.uri == TestVerifier.responseURI)
        #expect(resolved.verifier.clientIdValid)
        #expect(!resolved.verifier.isAuthenticated)
        #expect(resolved.verifier.displayName == nil)
        let parsed = try await parseAuthorizationRequest(requestUri: unsignedURI(parameters), walletConfig: config)
        #expect(await errorResponseDestination(for: parsed, walletConfig: config) == nil)

        let elsewhere = try verifier.parameters(clientId: clientId, responseMode: .directPost) { $0["response_uri"] = "https://evil.example/r" }
        await expectError(.responseURINotAllowed("not one of the client's URIs")) { try await resolve(unsignedURI(elsewhere), config) }
        let signed = try signedURI(parameters, clientId: clientId)
        await expectError(.signedRequestNotAllowed(prefix: "redirect_uri")) { try await resolve(signed, config) }
    }

    // MARK: decentralized_identifier

    @Test func didJWK() async throws {
        let jwk = verifier.signingKey.publicJWK
        let did = "did:jwk:" + Base64URL.encode(jwk.jsonObject.serialized())
        let clientId = "decentralized_identifier:" + did
        let parameters = try verifier.parameters(clientId: clientId)
        let uri = try signedURI(parameters, clientId: clientId, x5c: [], extra: ["kid": .string(did + "#0")])
        let resolved = try await resolve(uri, walletConfig(verifier))
        #expect(resolved.verifier.trustRoot == .decentralizedIdentifier(did))
        #expect(resolved.verifier.isAuthenticated)
        // A kid of another DID, an unknown fragment, or none at all.
        let foreign = try signedURI(parameters, clientId: clientId, x5c: [], extra: ["kid": "did:jwk:e30#0"])
        await expectError(.invalidDecentralizedIdentifier("kid is not a verification method of the Client Identifier's DID")) {
            try await resolve(foreign, walletConfig(verifier))
        }
        let fragment = try signedURI(parameters, clientId: clientId, x5c: [], extra: ["kid": .string(did + "#1")])
        await expectError(.invalidDecentralizedIdentifier("the DID Document has no verification method \(did)#1")) {
            try await resolve(fragment, walletConfig(verifier))
        }
        let noKid = try signedURI(parameters, clientId: clientId, x5c: [])
        await expectError(.invalidDecentralizedIdentifier("the request has no kid")) { try await resolve(noKid, walletConfig(verifier)) }
        // Signed by another key than the DID's.
        let otherKey = try verifier.pki.leaf(dnsNames: []).jwsKey()
        let forged = try signedURI(parameters, clientId: clientId, key: otherKey, x5c: [], extra: ["kid": .string(did + "#0")])
        await expectError(.requestSignatureInvalid(.invalidSignature)) { try await resolve(forged, walletConfig(verifier)) }
    }

    @Test func didKeyP256AndEd25519() async throws {
        guard case .es256(let p256) = verifier.signingKey else { throw TestFailure("not P-256") }
        let p256DID = "did:key:z" + Base58.encode([0x80, 0x24] + Array(p256.publicKey.compressedRepresentation))
        let ed = try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: 7, count: 32))
        let edDID = "did:key:z" + Base58.encode([0xED, 0x01] + Array(ed.publicKey.rawRepresentation))
        #expect(edDID.hasPrefix("did:key:z6Mk"))  // the familiar Ed25519 did:key prefix
        #expect(p256DID.hasPrefix("did:key:zDn"))  // and the P-256 one
        for (did, key) in [(p256DID, verifier.signingKey), (edDID, JWSSigningKey.edDSA(ed))] {
            let clientId = "decentralized_identifier:" + did
            let fragment = String(did.dropFirst("did:key:".count))
            let uri = try signedURI(try verifier.parameters(clientId: clientId), clientId: clientId, key: key, x5c: [], extra: ["kid": .string("#" + fragment)])
            #expect(try await resolve(uri, walletConfig(verifier)).verifier.trustRoot == .decentralizedIdentifier(did))
        }
        await expectError(.unsupportedDIDMethod("web")) { try await KeyDIDResolver().verificationMethods(of: "did:web:example.com") }
        await expectError(.invalidDecentralizedIdentifier("did:key id is not multibase base58btc")) {
            try await KeyDIDResolver().verificationMethods(of: "did:key:u0OOO")
        }
    }

    @Test func base58() throws {
        #expect(Base58.encode(Array("Hello World!".utf8)) == "2NEpo7TZRRrLZSi2U")
        #expect(Base58.decode("2NEpo7TZRRrLZSi2U") == Data("Hello World!".utf8))
        #expect(Base58.encode([0, 0, 0x28, 0x7f, 0xb4, 0xcd]) == "11233QC4")
        #expect(Base58.decode("11233QC4") == Data([0, 0, 0x28, 0x7f, 0xb4, 0xcd]))
        #expect(Base58.decode("0OIl") == nil)
    }

    // MARK: verifier_attestation

    func attestation(
        issuerKey: JWSSigningKey, iss: String = "https://attestation.example", sub: String = "verifier.example",
        exp: TimeInterval = 3600, redirectURIs: [String]? = nil
    ) throws -> String {
        var claims: JSONObject = [
            "iss": .string(iss), "sub": .string(sub), "iat": .integer(Int64(TestClock.now.timeIntervalSince1970)),
            "exp": .integer(Int64(TestClock.now.timeIntervalSince1970 + exp)),
            "cnf": ["jwk": .object(verifier.signingKey.publicJWK.jsonObject)],
        ]
        if let redirectURIs { claims["redirect_uris"] = .array(redirectURIs.map(JSONValue.string)) }
        return try CompactJWS.sign(header: ["typ": "verifier-attestation+jwt"], claims: claims, key: issuerKey).compact
    }

    @Test func verifierAttestation() async throws {
        let issuer = try verifier.pki.leaf(dnsNames: [], organization: "Attestation Issuer")
        let issuerKey = try issuer.jwsKey()
        let config = walletConfig(verifier) { $0.verifierAttestationIssuers = ["https://attestation.example": [issuerKey.publicJWK]] }
        let clientId = "verifier_attestation:verifier.example"
        let parameters = try verifier.parameters(clientId: clientId)
        func uri(_ token: String, key: JWSSigningKey? = nil) throws -> String {
            try signedURI(parameters, clientId: clientId, key: key, x5c: [], extra: ["jwt": .string(token)])
        }
        let resolved = try await resolve(try uri(try attestation(issuerKey: issuerKey)), config)
        #expect(resolved.verifier.trustRoot == .verifierAttestation(issuer: "https://attestation.example"))
        #expect(resolved.verifier.isAuthenticated)

        await expectError(.untrustedVerifierAttestationIssuer("https://rogue.example")) {
            try await resolve(try uri(try attestation(issuerKey: issuerKey, iss: "https://rogue.example")), config)
        }
        await expectError(.invalidVerifierAttestation("expired")) {
            try await resolve(try uri(try attestation(issuerKey: issuerKey, exp: -3600)), config)
        }
        await expectError(.invalidClientId("the Verifier Attestation sub is not the Client Identifier")) {
            try await resolve(try uri(try attestation(issuerKey: issuerKey, sub: "someone.else")), config)
        }
        await expectError(.invalidVerifierAttestation("signature does not verify with the issuer's keys")) {
            try await resolve(try uri(try attestation(issuerKey: try verifier.pki.leaf(dnsNames: []).jwsKey())), config)
        }
        await expectError(.responseURINotAllowed("not one of the client's URIs")) {
            try await resolve(try uri(try attestation(issuerKey: issuerKey, redirectURIs: ["https://verifier.example/other"])), config)
        }
        // The request must be signed with the attested (cnf) key.
        await expectError(.requestSignatureInvalid(.invalidSignature)) {
            try await resolve(try uri(try attestation(issuerKey: issuerKey), key: issuerKey), config)
        }
        await expectError(.invalidVerifierAttestation("no jwt header")) {
            try await resolve(try signedURI(parameters, clientId: clientId, x5c: []), config)
        }
    }

    // MARK: Request parameters (checked after authentication)

    @Test func missingNonce() async throws {
        let uri = try signedURI(try verifier.parameters { $0["nonce"] = nil })
        await expectError(.missingNonce) { try await resolve(uri, walletConfig(verifier)) }
    }

    @Test func nonceAndStateCharset() async throws {
        await expectError(.invalidNonce) { try await resolve(try signedURI(try verifier.parameters { $0["nonce"] = "a b" }), walletConfig(verifier)) }
        await expectError(.invalidNonce) { try await resolve(try signedURI(try verifier.parameters { $0["nonce"] = "" }), walletConfig(verifier)) }
        await expectError(.invalidState) { try await resolve(try signedURI(try verifier.parameters { $0["state"] = "x/y" }), walletConfig(verifier)) }
        await expectError(.invalidParameter(name: "nonce", reason: "not a string")) {
            try await resolve(try signedURI(try verifier.parameters { $0["nonce"] = 5 }), walletConfig(verifier))
        }
    }

    @Test func redirectURIWithDirectPost() async throws {
        let parameters = try verifier.parameters { $0["redirect_uri"] = "https://verifier.example.org/cb" }
        let uri = try signedURI(parameters)
        let decryptor = verifier.encryptionKey
        let http = FakeHTTPClient { _ in FakeHTTPClient.json([:]) }
        let config = walletConfig(verifier, http: http)
        await expectError(.redirectURIWithDirectPost) { try await resolve(uri, config) }
        // The request authenticated, so the wallet answers invalid_request at the response URI, encrypted.
        let parsed = try await parseAuthorizationRequest(requestUri: uri, walletConfig: config)
        let destination = try #require(await errorResponseDestination(for: parsed, walletConfig: config))
        #expect(destination.responseMode == .directPostJWT)
        let result = try await submitErrorResponse(
            AuthorizationErrorResponse(.redirectURIWithDirectPost, state: nil), destination: destination, walletConfig: config)
        #expect(result == .success(redirectURI: nil, responseBody: [:]))
        let received = try ReceivedAuthorizationResponse.parse(formBody: try #require(http.requests.first?.body), decryptionKey: decryptor)
        guard case .error(let error) = received.response else { throw TestFailure("not an error response") }
        #expect(error.error == .invalidRequest)
        #expect(error.state == TestVerifier.state)
    }

    @Test func responseTypeAndQueryRules() async throws {
        let pid = try verifier.dcql()
        let config = walletConfig(verifier) { $0.scopes = ["com.example.pid": pid] }
        await expectError(.unsupportedResponseType("code")) {
            try await resolve(try signedURI(try verifier.parameters { $0["response_type"] = "code" }), config)
        }
        await expectError(.dcqlQueryAndScope) {
            try await resolve(try signedURI(try verifier.parameters { $0["scope"] = "com.example.pid" }), config)
        }
        await expectError(.missingDCQLQuery) {
            try await resolve(try signedURI(try verifier.parameters { $0["dcql_query"] = nil }), config)
        }
        let scoped = try await resolve(try signedURI(try verifier.parameters {
            $0["dcql_query"] = nil
            $0["scope"] = "com.example.pid"
        }), config)
        #expect(scoped.dcqlQuery == (try verifier.dcql()))
        await expectError(.unsupportedScope("com.example.unknown")) {
            try await resolve(try signedURI(try verifier.parameters {
                $0["dcql_query"] = nil
                $0["scope"] = "com.example.unknown"
            }), config)
        }
        await expectError(.unsupportedResponseMode("form_post")) {
            try await resolve(try signedURI(try verifier.parameters { $0["response_mode"] = "form_post" }), config)
        }
        await expectError(.missingResponseURI) {
            try await resolve(try signedURI(try verifier.parameters { $0["response_uri"] = nil }), config)
        }
        await expectError(.insecureURI(name: "response_uri")) {
            try await resolve(try signedURI(try verifier.parameters { $0["response_uri"] = "http://verifier.example.org/response" }), config)
        }
        await expectError(.invalidDCQLQuery("credentials is missing")) {
            try await resolve(try signedURI(try verifier.parameters { $0["dcql_query"] = [:] }), config)
        }
    }

    @Test func vpFormatsNotSupported() async throws {
        let uri = try signedURI(try verifier.parameters {
            var metadata = verifier.clientMetadata()
            metadata["vp_formats_supported"] = ["jwt_vc_json": [:]]
            $0["client_metadata"] = .object(metadata)
        })
        await expectError(.vpFormatsNotSupported) { try await resolve(uri, walletConfig(verifier)) }
    }

    // MARK: Transaction data

    func transactionData(_ object: JSONObject) -> JSONValue { .string(Base64URL.encode(object.serialized())) }

    @Test func unknownTransactionDataType() async throws {
        let uri = try signedURI(try verifier.parameters {
            $0["transaction_data"] = [transactionData(["type": "urn:example:unknown", "credential_ids": ["my_credential"]])]
        })
        let config = walletConfig(verifier) { $0.supportedTransactionDataTypes = ["urn:example:payment"] }
        await expectError(.unsupportedTransactionDataType("urn:example:unknown")) { try await resolve(uri, config) }
        #expect(OpenID4VPError.unsupportedTransactionDataType("x").errorCode == .invalidTransactionData)
    }

    @Test func transactionDataRules() async throws {
        let config = walletConfig(verifier) { $0.supportedTransactionDataTypes = ["urn:example:payment"] }
        let payment: JSONObject = ["type": "urn:example:payment", "credential_ids": ["my_credential"], "amount": "10 EUR"]
        let resolved = try await resolve(try signedURI(try verifier.parameters { $0["transaction_data"] = [transactionData(payment)] }), config)
        #expect(resolved.transactionData.map(\.type) == ["urn:example:payment"])
        #expect(resolved.transactionData(forQuery: "my_credential").count == 1)

        var unknownId = payment
        unknownId["credential_ids"] = ["nope"]
        await expectError(.invalidTransactionData(#"credential_ids names unknown credential query "nope""#)) {
            try await resolve(try signedURI(try verifier.parameters { $0["transaction_data"] = [transactionData(unknownId)] }), config)
        }
        var badHash = payment
        badHash["transaction_data_hashes_alg"] = ["sha-1"]
        await expectError(.invalidTransactionData("no supported hash algorithm in transaction_data_hashes_alg")) {
            try await resolve(try signedURI(try verifier.parameters { $0["transaction_data"] = [transactionData(badHash)] }), config)
        }
        await expectError(.invalidTransactionData("not base64url")) {
            try await resolve(try signedURI(try verifier.parameters { $0["transaction_data"] = ["%%%"] }), config)
        }
        // B.3.3: transaction data needs holder binding.
        let unbound = try DCQLQuery(credentials: [
            try .sdJWTVC(id: "my_credential", vctValues: [identityVCT], requireCryptographicHolderBinding: false)
        ])
        await expectError(.invalidTransactionData(#"credential query "my_credential" does not require holder binding (B.3.3)"#)) {
            try await resolve(try signedURI(try verifier.parameters {
                $0["dcql_query"] = .object(unbound.json)
                $0["transaction_data"] = [transactionData(payment)]
            }), config)
        }
    }

    // MARK: Response encryption key selection (§8.3)

    @Test func unusableEncryptionKeysAreIgnored() async throws {
        let good = verifier.encryptionJWK.with(kid: "good")
        var noAlg = verifier.encryptionJWK.jsonObject
        noAlg["alg"] = nil
        noAlg["kid"] = "no-alg"
        var signing = verifier.encryptionJWK.jsonObject
        signing["use"] = "sig"
        signing["kid"] = "sig"
        var noKid = verifier.encryptionJWK.jsonObject
        noKid["kid"] = nil
        let keys: [JSONValue] = [
            ["kty": "OKP", "crv": "X25519", "use": "enc", "alg": "ECDH-ES", "kid": "x25519", "x": "WPX7wnwq10hFNK9aDSyG1QlLswE_CJY14LdhcFUIVVc"],
            ["kty": "EC", "crv": "P-256", "kid": "broken", "alg": "ECDH-ES", "x": "AAAA", "y": "AAAA"],
            .object(signing), .object(noAlg), .object(noKid), .object(good.jsonObject),
        ]
        let uri = try signedURI(try verifier.parameters { $0["client_metadata"] = .object(verifier.clientMetadata(keys: keys, enc: ["A128GCM"])) })
        let resolved = try await resolve(uri, walletConfig(verifier))
        #expect(resolved.destination.encryption?.key.kid == "good")
        #expect(resolved.destination.encryption?.enc == .a128gcm)

        let none = try signedURI(try verifier.parameters { $0["client_metadata"] = .object(verifier.clientMetadata(keys: Array(keys.dropLast()))) })
        await expectError(.noUsableEncryptionKey) { try await resolve(none, walletConfig(verifier)) }
        let cbc = try signedURI(try verifier.parameters { $0["client_metadata"] = .object(verifier.clientMetadata(enc: ["A128CBC-HS256"])) })
        await expectError(.unsupportedResponseEncryption(["A128CBC-HS256"])) { try await resolve(cbc, walletConfig(verifier)) }
        // Without encrypted_response_enc_values_supported the default is A128GCM (§5.1).
        let defaulted = try signedURI(try verifier.parameters {
            var metadata = verifier.clientMetadata()
            metadata["encrypted_response_enc_values_supported"] = nil
            $0["client_metadata"] = .object(metadata)
        })
        #expect(try await resolve(defaulted, walletConfig(verifier)).destination.encryption?.enc == .a128gcm)
    }

    /// A direct_post.jwt request whose keys are all unusable still gets its error, unencrypted (§8.3.1).
    @Test func errorWithoutUsableKeyGoesUnencrypted() async throws {
        let parameters = try verifier.parameters { $0["client_metadata"] = .object(verifier.clientMetadata(keys: [])) }
        let config = walletConfig(verifier)
        let parsed = try await parseAuthorizationRequest(requestUri: try signedURI(parameters), walletConfig: config)
        await expectError(.noUsableEncryptionKey) { try await resolveAuthorizationRequest(parsed, walletConfig: config) }
        let destination = try #require(await errorResponseDestination(for: parsed, walletConfig: config))
        #expect(destination.responseMode == .directPost)
        #expect(destination.encryption == nil)
    }
}
