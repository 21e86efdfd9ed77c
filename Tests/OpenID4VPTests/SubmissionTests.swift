import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import TesseraHTTP

@testable import OpenID4VP

/// `submitAuthorizationResponse` (§8.2, §8.3.1, redirects) and the §8.3 encrypted response vector.
@Suite struct SubmissionTests {
    let verifier: TestVerifier
    let sdJWT: TestSDJWTWorld

    init() throws {
        verifier = try TestVerifier()
        sdJWT = try TestSDJWTWorld()
    }

    func respond(
        mode: ResponseMode, http: FakeHTTPClient, edit: (inout JSONObject) -> Void = { _ in }
    ) async throws -> (ResolvedAuthorizationRequest, AuthorizationResponse, WalletConfiguration) {
        let config = walletConfig(verifier, http: http)
        let parameters = try verifier.parameters(responseMode: mode, edit: edit)
        let request = try await resolve(verifier.byValue(try verifier.requestObject(parameters)), config)
        let selection = try request.match([try sdJWT.credential()]).preferredSelection()
        let response = try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: config)
        return (request, response, config)
    }

    @Test func directPost() async throws {
        let http = FakeHTTPClient { _ in FakeHTTPClient.json(["redirect_uri": "https://verifier.example.org/cb#response_code=091535f6"]) }
        let (request, response, config) = try await respond(mode: .directPost, http: http)
        let result = try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
        #expect(result == .success(
            redirectURI: URL(string: "https://verifier.example.org/cb#response_code=091535f6"),
            responseBody: ["redirect_uri": "https://verifier.example.org/cb#response_code=091535f6"]))
        let sent = try #require(http.requests.first)
        #expect(sent.method == .post)
        #expect(sent.url.absoluteString == TestVerifier.responseURI)
        #expect(sent.header("Content-Type") == "application/x-www-form-urlencoded")
        let form = try sent.formParameters()
        #expect(Set(form.keys) == ["vp_token", "state"])
        #expect(form["state"] == TestVerifier.state)
        // vp_token: a JSON object keyed by query id, each value an array (§8.1).
        let tokenText = try #require(form["vp_token"])
        let token = try #require(try JSONValue.parse(tokenText).objectValue)
        #expect(token.keys == ["my_credential"])
        #expect(token["my_credential"]?.arrayValue?.count == 1)
        let received = try ReceivedAuthorizationResponse.parse(formBody: try #require(sent.body))
        #expect(received.response == response)
        #expect(received.state == TestVerifier.state)
    }

    @Test func directPostJWT() async throws {
        let http = FakeHTTPClient { _ in FakeHTTPClient.json([:]) }
        let (request, response, config) = try await respond(mode: .directPostJWT, http: http)
        #expect(try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
            == .success(redirectURI: nil, responseBody: [:]))
        let sent = try #require(http.requests.first)
        let form = try sent.formParameters()
        #expect(Set(form.keys) == ["response"])
        let jwe = try CompactJWE(parsing: try #require(form["response"]))
        #expect(jwe.header["alg"] == "ECDH-ES")
        #expect(jwe.header["enc"] == "A256GCM")
        #expect(jwe.keyID == "enc-1")  // §8.3: the chosen key's kid echoed
        let received = try ReceivedAuthorizationResponse.parse(formBody: try #require(sent.body), decryptionKey: verifier.encryptionKey)
        #expect(received.response == response)
        #expect(received.encryptionKeyThumbprint == verifier.encryptionJWK.thumbprint())
        // A verifier expecting plain parameters refuses the JWE, and the wrong key cannot open it.
        #expect(throws: OpenID4VPError.invalidAuthorizationResponse("an encrypted response was not expected")) {
            try ReceivedAuthorizationResponse.parse(formBody: try #require(sent.body))
        }
        let wrongKey = try JWEKeyAgreementKey.generate(.p256, random: SeededRandomSource(seed: 77))
        #expect(throws: OpenID4VPError.invalidAuthorizationResponse("the response JWE does not decrypt (RFC 7516 §5.2: decryption failed)")) {
            try ReceivedAuthorizationResponse.parse(formBody: try #require(sent.body), decryptionKey: wrongKey)
        }
    }

    @Test func redirectFromResponseURIIsAnError() async throws {
        let http = FakeHTTPClient { _ in HTTPResponse(status: 307, headers: [("Location", "https://evil.example/collect")]) }
        let (request, response, config) = try await respond(mode: .directPost, http: http)
        await expectError(.httpRedirectRejected(status: 307)) {
            try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
        }
        #expect(http.requests.count == 1)
    }

    @Test func verifierErrorAnswers() async throws {
        let rejecting = FakeHTTPClient { _ in FakeHTTPClient.json(["error": "invalid_request", "error_description": "stale state"], status: 400) }
        let (request, response, config) = try await respond(mode: .directPost, http: rejecting)
        #expect(try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
            == .error(error: "invalid_request", errorDescription: "stale state"))

        let broken = FakeHTTPClient { _ in HTTPResponse(status: 500, body: Data("oops".utf8)) }
        let brokenConfig = walletConfig(verifier, http: broken)
        await expectError(.invalidResponseURIResponse("HTTP 500 without an error object")) {
            try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: brokenConfig)
        }
        let relative = FakeHTTPClient { _ in FakeHTTPClient.json(["redirect_uri": "/cb"]) }
        await expectError(.invalidResponseURIResponse("redirect_uri is not an absolute URI")) {
            try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: walletConfig(verifier, http: relative))
        }
    }

    @Test func fragmentAndQueryModes() async throws {
        for mode in [ResponseMode.fragment, .query] {
            let http = FakeHTTPClient.offline
            let (request, response, config) = try await respond(mode: mode, http: http) {
                $0["response_uri"] = nil
                $0["redirect_uri"] = "https://verifier.example.org/cb?session=1"
            }
            let result = try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
            guard case .redirect(let url) = result else { throw TestFailure("expected a redirect") }
            #expect(http.requests.isEmpty)
            let text = url.absoluteString
            let separator = mode == .fragment ? "https://verifier.example.org/cb?session=1#" : "https://verifier.example.org/cb?session=1&"
            #expect(text.hasPrefix(separator))
            let parameters = Dictionary(uniqueKeysWithValues: try FormURLEncoding.decode(text.dropFirst(separator.count)).map { ($0.name, $0.value) })
            #expect(parameters["state"] == TestVerifier.state)
            let tokenText = try #require(parameters["vp_token"])
            #expect(try JSONValue.parse(tokenText)["my_credential"]?.arrayValue?.count == 1)
        }
    }

    @Test func responseModeOverride() async throws {
        let http = FakeHTTPClient { _ in FakeHTTPClient.json([:]) }
        let (request, response, config) = try await respond(mode: .directPostJWT, http: http)
        await expectError(.unsupportedResponseMode("direct_post")) {
            try await submitAuthorizationResponse(resolvedRequest: request, response: response, responseMode: .directPost, walletConfig: config)
        }
        // §8.3.1: an error may go unencrypted.
        let error = AuthorizationResponse.error(AuthorizationErrorResponse(error: .accessDenied, state: request.state))
        _ = try await submitAuthorizationResponse(resolvedRequest: request, response: error, responseMode: .directPost, walletConfig: config)
        #expect(try http.requests.last?.formParameters() == ["error": "access_denied", "state": TestVerifier.state])
    }

    // MARK: §8.3 vector

    @Test func encryptedResponseVector() throws {
        let vector = try Fixtures.json("oid4vp-1.0-8.3-encrypted-response.json").at("cases")
        let testCase = try #require(vector.arrayValue?.first)
        let compact = try testCase.text("input", "jwe_compact")
        let privateJWK = try JWK(json: try #require(testCase.at("input", "verifier_private_jwk").objectValue))
        let key = try JWEKeyAgreementKey(jwk: privateJWK)
        let received = try ReceivedAuthorizationResponse.parse(
            formBody: Data(FormURLEncoding.encode([("response", compact)]).utf8), decryptionKey: key)
        guard case .vpToken(let token, let state) = received.response else { throw TestFailure("not a vp_token") }
        #expect(state == nil)
        #expect(token["example_credential_id"] == ["eyJhb...YMetA"])
        #expect(received.encryptedResponse?.keyID == "ac")
        #expect(received.encryptionKeyThumbprint == privateJWK.publicJWK.thumbprint())

        // The wallet's key choice for the request of the example: the first key ("ac", P-256) is usable; the
        // X25519, P-384 and X448 keys come after it. enc: A128GCM, the only offered value the wallet implements.
        var keys: [JSONValue] = [.object(privateJWK.publicJWK.jsonObject)]
        keys += try testCase.at("input", "other_client_metadata_jwks").arrayValue ?? []
        let enc = try testCase.at("input", "request_context", "encrypted_response_enc_values_supported")
        let metadata = try ClientMetadata(json: ["jwks": ["keys": .array(keys)], "encrypted_response_enc_values_supported": enc])
        let chosen = try ResponseEncryption.select(metadata: metadata, preference: [.a256gcm, .a128gcm])
        #expect(chosen.key.kid == "ac")
        #expect(chosen.enc == .a128gcm)
        // Unusable keys are skipped, whatever their position: X25519 and X448 (OKP) are not ECDH-ES keys this
        // wallet implements, so with them first the P-384 key "lc" is chosen.
        let reordered = try ClientMetadata(json: ["jwks": ["keys": .array(Array(keys.dropFirst()))], "encrypted_response_enc_values_supported": enc])
        #expect(try ResponseEncryption.select(metadata: reordered, preference: [.a256gcm, .a128gcm]).key.kid == "lc")
    }
}

@Suite struct ErrorResponseTextTests {
    @Test func descriptionsKeepToTheRFC6749CharacterSet() {
        let response = AuthorizationErrorResponse(OpenID4VPError.unsupportedClientIdPrefix("fooé"), state: "s")
        #expect(response.errorDescription == "Section 5.9.3: unsupported Client Identifier Prefix 'foo'")
        #expect(response.error == .invalidRequest)
        #expect(AuthorizationErrorCode(rawValue: "bad\"code").isWellFormed == false)
        #expect(AuthorizationErrorCode.accessDenied.isWellFormed)
        #expect(throws: OpenID4VPError.invalidAuthorizationResponse("error holds characters RFC 6749 forbids")) {
            try ReceivedAuthorizationResponse.parse(formBody: Data("error=a%22b".utf8))
        }
        // Codes defined elsewhere are carried through.
        let received = try? ReceivedAuthorizationResponse.parse(formBody: Data("error=temporarily_unavailable&state=s".utf8))
        #expect(received?.response == .error(AuthorizationErrorResponse(error: .temporarilyUnavailable, state: "s")))
    }

    /// §8.3.1: where an encrypted response is expected, an error may still come in the clear when the verifier
    /// accepts it; a clear vp_token never does.
    @Test func aClearErrorWhereEncryptionIsExpected() throws {
        let key = try JWEKeyAgreementKey.generate(.p256, random: SeededRandomSource(seed: 78))
        let body = Data("error=access_denied&state=s".utf8)
        let received = try ReceivedAuthorizationResponse.parse(formBody: body, decryptionKey: key, acceptsClearError: true)
        #expect(received.response == .error(AuthorizationErrorResponse(error: .accessDenied, state: "s")))
        #expect(received.encryptedResponse == nil)
        #expect(throws: OpenID4VPError.invalidAuthorizationResponse("direct_post.jwt expects exactly the response parameter")) {
            try ReceivedAuthorizationResponse.parse(formBody: body, decryptionKey: key)
        }
        #expect(throws: OpenID4VPError.invalidAuthorizationResponse("direct_post.jwt expects exactly the response parameter")) {
            try ReceivedAuthorizationResponse.parse(
                formBody: Data(#"vp_token=%7B%7D&state=s"#.utf8), decryptionKey: key, acceptsClearError: true)
        }
    }
}
