import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import TesseraHTTP

@testable import OpenID4VP

/// Invocation, Request Objects and request_uri retrieval (§5, §5.10, RFC 9101), with the wallet-side negatives
/// of the OpenID conformance suite.
@Suite struct RequestParsingTests {
    let verifier: TestVerifier

    init() throws { verifier = try TestVerifier() }

    // MARK: Positive paths

    @Test func requestObjectByValue() async throws {
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters()))
        let resolved = try await resolve(uri, walletConfig(verifier))
        #expect(resolved.clientId == "x509_san_dns:verifier.example.org")
        #expect(resolved.nonce == TestVerifier.nonce)
        #expect(resolved.state == TestVerifier.state)
        #expect(resolved.responseMode == .directPostJWT)
        #expect(resolved.destination.uri == TestVerifier.responseURI)
        #expect(resolved.dcqlQuery == (try verifier.dcql()))
        #expect(resolved.verifier.clientIdPrefix == .x509SanDNS)
        #expect(resolved.verifier.clientIdValid)
        #expect(resolved.verifier.isAuthenticated)
        #expect(resolved.verifier.displayName == "Example Verifier")
        #expect(resolved.verifier.trustRoot == .x509(anchorSubject: verifier.pki.root.certificate.subject.description))
        // HAIP §5: A256GCM preferred when the verifier offers both; kid of the chosen key.
        #expect(resolved.destination.encryption?.enc == .a256gcm)
        #expect(resolved.destination.encryption?.key.kid == "enc-1")
    }

    @Test(arguments: ["openid4vp://", "haip-vp://", "https://wallet.example.com/authorize"])
    func invocationSchemes(_ prefix: String) async throws {
        let requestObject = try verifier.requestObject(try verifier.parameters())
        let uri = prefix + "?" + FormURLEncoding.encode([("client_id", verifier.clientId), ("request", requestObject)])
        let parsed = try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier))
        #expect(parsed.transport == .requestObjectByValue)
        #expect(parsed.clientId.full == verifier.clientId)
    }

    @Test func requestURIWithGet() async throws {
        let requestObject = try verifier.requestObject(try verifier.parameters())
        let http = FakeHTTPClient { _ in FakeHTTPClient.jwt(requestObject) }
        let resolved = try await resolve(verifier.byReference(), walletConfig(verifier, http: http))
        #expect(resolved.nonce == TestVerifier.nonce)
        let sent = try #require(http.requests.first)
        #expect(http.requests.count == 1)
        #expect(sent.method == .get)
        #expect(sent.url.absoluteString == TestVerifier.requestURI)
        #expect(sent.header("Accept") == "application/oauth-authz-req+jwt")
    }

    /// request_uri_method=post must work: wallet_metadata and a fresh wallet_nonce go out, and the Request Object
    /// must echo the nonce.
    @Test func requestURIWithPostEchoesWalletNonce() async throws {
        let verifier = self.verifier
        let http = FakeHTTPClient { request in
            guard let form = try? request.formParameters(), let nonce = form["wallet_nonce"],
                let object = try? verifier.requestObject(verifier.parameters { $0["wallet_nonce"] = .string(nonce) })
            else { return HTTPResponse(status: 400) }
            return FakeHTTPClient.jwt(object)
        }
        let config = walletConfig(verifier, http: http)
        let parsed = try await parseAuthorizationRequest(requestUri: verifier.byReference(method: .post), walletConfig: config)
        let sent = try #require(http.requests.first)
        #expect(sent.method == .post)
        #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(sent.header("Accept") == "application/oauth-authz-req+jwt")
        let form = try sent.formParameters()
        let nonce = try #require(form["wallet_nonce"])
        #expect(try Base64URL.decode(nonce).count == 16)
        #expect(parsed.walletNonce == nonce)
        let requestURL = try #require(URL(string: TestVerifier.requestURI))
        #expect(parsed.transport == .requestObjectByReference(uri: requestURL, method: .post))
        let metadata = try JSONValue.parse(try #require(form["wallet_metadata"]))
        #expect(metadata["vp_formats_supported"]?["dc+sd-jwt"] != nil)
        #expect(metadata["vp_formats_supported"]?["mso_mdoc"] != nil)
        #expect(metadata["client_id_prefixes_supported"]?.arrayValue?.contains("x509_san_dns") == true)
        #expect(metadata["request_object_signing_alg_values_supported"] != nil)
        let resolved = try await resolveAuthorizationRequest(parsed, walletConfig: config)
        #expect(resolved.request.walletNonce == nonce)
    }

    @Test func requestURIWithPostRejectsMissingWalletNonce() async throws {
        let object = try verifier.requestObject(try verifier.parameters())
        let http = FakeHTTPClient { _ in FakeHTTPClient.jwt(object) }
        await expectError(.walletNonceMissing) {
            try await parseAuthorizationRequest(requestUri: verifier.byReference(method: .post), walletConfig: walletConfig(verifier, http: http))
        }
    }

    @Test func requestURIWithPostRejectsWrongWalletNonce() async throws {
        let object = try verifier.requestObject(try verifier.parameters { $0["wallet_nonce"] = "replayed-nonce" })
        let http = FakeHTTPClient { _ in FakeHTTPClient.jwt(object) }
        await expectError(.walletNonceMismatch) {
            try await parseAuthorizationRequest(requestUri: verifier.byReference(method: .post), walletConfig: walletConfig(verifier, http: http))
        }
    }

    @Test func walletWithoutPostSupportUsesGet() async throws {
        let object = try verifier.requestObject(try verifier.parameters())
        let http = FakeHTTPClient { _ in FakeHTTPClient.jwt(object) }
        let config = walletConfig(verifier, http: http) { $0.usesRequestURIMethodPost = false }
        let parsed = try await parseAuthorizationRequest(requestUri: verifier.byReference(method: .post), walletConfig: config)
        #expect(http.requests.first?.method == .get)
        #expect(parsed.walletNonce == nil)
    }

    // MARK: Request Object negatives

    @Test func invalidRequestObjectSignature() async throws {
        var generator = SeededRandomSource(seed: 1234).generator
        let otherKey = try JWSSigningKey.es256(P256.Signing.PrivateKey(rawRepresentation: Data((0..<32).map { _ in UInt8.random(in: 1...255, using: &generator) })))
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters(), key: otherKey))
        await expectError(.requestSignatureInvalid(.invalidSignature)) { try await resolve(uri, walletConfig(verifier)) }
    }

    @Test func tamperedRequestObjectPayload() async throws {
        let object = try verifier.requestObject(try verifier.parameters())
        let parts = object.split(separator: ".")
        let forged = try verifier.parameters { $0["nonce"] = "attacker-nonce" }
        let tampered = parts[0] + "." + Base64URL.encode(forged.serialized()) + "." + parts[2]
        await expectError(.requestSignatureInvalid(.invalidSignature)) { try await resolve(verifier.byValue(String(tampered)), walletConfig(verifier)) }
    }

    @Test func missingTyp() async throws {
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters(), typ: nil))
        await expectError(.requestObjectTypeMissing) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier)) }
    }

    @Test(arguments: ["JWT", "jwt", "oauth-authz-req", "application/jwt"])
    func wrongTyp(_ typ: String) async throws {
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters(), typ: typ))
        await expectError(.requestObjectTypeInvalid(typ)) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier)) }
    }

    @Test(arguments: ["oauth-authz-req+jwt", "OAuth-Authz-Req+JWT", "application/oauth-authz-req+jwt"])
    func typComparesAsMediaType(_ typ: String) async throws {
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters(), typ: typ))
        _ = try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier))
    }

    @Test func mismatchedClientId() async throws {
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters()), clientId: "x509_san_dns:other.example.org")
        await expectError(.clientIdMismatch(outer: "x509_san_dns:other.example.org", requestObject: verifier.clientId)) {
            try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier))
        }
        // The prefix is part of the identifier: the same host without it is another client.
        let bare = verifier.byValue(try verifier.requestObject(try verifier.parameters()), clientId: TestVerifier.host)
        await expectError(.clientIdMismatch(outer: TestVerifier.host, requestObject: verifier.clientId)) {
            try await parseAuthorizationRequest(requestUri: bare, walletConfig: walletConfig(verifier))
        }
    }

    @Test func missingClientIdInRequestObject() async throws {
        let uri = verifier.byValue(try verifier.requestObject(try verifier.parameters { $0["client_id"] = nil }))
        await expectError(.missingParameter("client_id")) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier)) }
    }

    @Test func encryptedRequestObject() async throws {
        let jwe = try CompactJWE.encrypt(
            Data("{}".utf8), to: verifier.encryptionKey.publicJWK, enc: .a128gcm, random: SeededRandomSource(seed: 2))
        await expectError(.encryptedRequestObjectUnsupported) {
            try await parseAuthorizationRequest(requestUri: verifier.byValue(jwe.compact), walletConfig: walletConfig(verifier))
        }
    }

    @Test func unsignedRequestObjectIsRejected() async throws {
        let header = Base64URL.encode(Data(#"{"alg":"none","typ":"oauth-authz-req+jwt"}"#.utf8))
        let payload = Base64URL.encode(try verifier.parameters().serialized())
        await expectError(.invalidRequestObject(.algorithmNone)) {
            try await parseAuthorizationRequest(requestUri: verifier.byValue(header + "." + payload + "."), walletConfig: walletConfig(verifier))
        }
    }

    @Test func expiredRequestObject() async throws {
        let expired = try verifier.parameters { $0["exp"] = .integer(Int64(TestClock.now.timeIntervalSince1970) - 3600) }
        await expectError(.invalidParameter(name: "exp", reason: "the Request Object has expired")) {
            try await resolve(verifier.byValue(try verifier.requestObject(expired)), walletConfig(verifier))
        }
    }

    // MARK: request_uri retrieval negatives

    @Test func requestURIRedirectIsNotFollowed() async throws {
        let http = FakeHTTPClient { _ in HTTPResponse(status: 302, headers: [("Location", "https://evil.example/")]) }
        await expectError(.httpRedirectRejected(status: 302)) {
            try await parseAuthorizationRequest(requestUri: verifier.byReference(method: .post), walletConfig: walletConfig(verifier, http: http))
        }
        #expect(http.requests.count == 1)
    }

    @Test func requestURIErrorStatus() async throws {
        let http = FakeHTTPClient { _ in HTTPResponse(status: 404) }
        await expectError(.requestURIError(status: 404)) {
            try await parseAuthorizationRequest(requestUri: verifier.byReference(), walletConfig: walletConfig(verifier, http: http))
        }
    }

    @Test func requestURIContentType() async throws {
        let object = try verifier.requestObject(try verifier.parameters())
        let http = FakeHTTPClient { _ in HTTPResponse(status: 200, headers: [("Content-Type", "text/html")], body: Data(object.utf8)) }
        await expectError(.unexpectedContentType("text/html")) {
            try await parseAuthorizationRequest(requestUri: verifier.byReference(), walletConfig: walletConfig(verifier, http: http))
        }
    }

    @Test func requestURIMustBeHTTPS() async throws {
        let uri = VerifierRequests.invocationURI(clientId: verifier.clientId, requestURI: "http://verifier.example.org/request")
        await expectError(.insecureURI(name: "request_uri")) {
            try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier))
        }
    }

    @Test func invalidRequestURIMethod() async throws {
        let uri = "openid4vp://?" + FormURLEncoding.encode([
            ("client_id", verifier.clientId), ("request_uri", TestVerifier.requestURI), ("request_uri_method", "PUT"),
        ])
        await expectError(.invalidRequestURIMethod("PUT")) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier)) }
        #expect(OpenID4VPError.invalidRequestURIMethod("PUT").errorCode == .invalidRequestURIMethod)
        // Case-sensitive (§5.1).
        let upper = "openid4vp://?" + FormURLEncoding.encode([
            ("client_id", verifier.clientId), ("request_uri", TestVerifier.requestURI), ("request_uri_method", "POST"),
        ])
        await expectError(.invalidRequestURIMethod("POST")) { try await parseAuthorizationRequest(requestUri: upper, walletConfig: walletConfig(verifier)) }
    }

    @Test func requestURIMethodWithoutRequestURI() async throws {
        let uri = "openid4vp://?" + FormURLEncoding.encode([("client_id", verifier.clientId), ("request_uri_method", "post")])
        await expectError(.requestURIMethodWithoutRequestURI) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier)) }
    }

    @Test func requestAndRequestURI() async throws {
        let uri = "openid4vp://?" + FormURLEncoding.encode([
            ("client_id", verifier.clientId), ("request", "a.b.c"), ("request_uri", TestVerifier.requestURI),
        ])
        await expectError(.requestAndRequestURIBothPresent) { try await parseAuthorizationRequest(requestUri: uri, walletConfig: walletConfig(verifier)) }
    }

    // MARK: Invocation URI negatives

    @Test func invocationNegatives() async throws {
        let config = walletConfig(verifier)
        await expectError(.unsupportedInvocationScheme("mdoc-openid4vp")) {
            try await parseAuthorizationRequest(requestUri: "mdoc-openid4vp://?client_id=a", walletConfig: config)
        }
        await expectError(.invalidInvocationURI("no query")) { try await parseAuthorizationRequest(requestUri: "openid4vp://authorize", walletConfig: config) }
        await expectError(.invalidInvocationURI("no scheme")) { try await parseAuthorizationRequest(requestUri: "client_id", walletConfig: config) }
        await expectError(.duplicateParameter("client_id")) {
            try await parseAuthorizationRequest(requestUri: "openid4vp://?client_id=a&client_id=b", walletConfig: config)
        }
        await expectError(.malformedParameters("invalid percent escape")) {
            try await parseAuthorizationRequest(requestUri: "openid4vp://?client_id=%zz", walletConfig: config)
        }
        await expectError(.malformedParameters("parameter is not UTF-8")) {
            try await parseAuthorizationRequest(requestUri: "openid4vp://?client_id=%ff", walletConfig: config)
        }
        await expectError(.missingParameter("client_id")) { try await parseAuthorizationRequest(requestUri: "openid4vp://?nonce=x", walletConfig: config) }
        let long = "openid4vp://?client_id=" + String(repeating: "a", count: 300_000)
        await expectError(.invalidInvocationURI("longer than 262144 bytes")) { try await parseAuthorizationRequest(requestUri: long, walletConfig: config) }
    }

    @Test func formEncodingRoundTrip() throws {
        let pairs = [("a b", "c+d&e=f"), ("json", #"{"k":["v"]}"#), ("unicode", "Zoë ✓")]
        let decoded = try FormURLEncoding.decode(FormURLEncoding.encode(pairs))
        #expect(decoded.map(\.name) == pairs.map(\.0))
        #expect(decoded.map(\.value) == pairs.map(\.1))
        #expect(try FormURLEncoding.decode("a=1+2&b=").map(\.value) == ["1 2", ""])
    }
}
