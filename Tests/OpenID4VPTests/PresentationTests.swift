import Crypto
import Foundation
import MDoc
import SDJWT
import TesseraCBOR
import TesseraCore
import TesseraJOSE
import Testing

@testable import OpenID4VP

/// `createAuthorizationResponse`: SD-JWT VC with KB-JWT and mdoc DeviceResponse over the OpenID4VPHandover,
/// verified with the verifier-side helpers.
@Suite struct PresentationTests {
    let verifier: TestVerifier
    let sdJWT: TestSDJWTWorld
    let mdoc: TestMDocWorld

    init() throws {
        verifier = try TestVerifier()
        sdJWT = try TestSDJWTWorld()
        mdoc = try TestMDocWorld()
    }

    func resolved(
        _ query: DCQLQuery? = nil, mode: ResponseMode = .directPostJWT, config: WalletConfiguration? = nil,
        edit: (inout JSONObject) -> Void = { _ in }
    ) async throws -> ResolvedAuthorizationRequest {
        let parameters = try verifier.parameters(responseMode: mode) {
            if let query { $0["dcql_query"] = .object(query.json) }
            edit(&$0)
        }
        return try await resolve(verifier.byValue(try verifier.requestObject(parameters)), config ?? walletConfig(verifier))
    }

    func vpToken(_ response: AuthorizationResponse) throws -> (VPToken, String?) {
        guard case .vpToken(let token, let state) = response else { throw TestFailure("not a vp_token response") }
        return (token, state)
    }

    // MARK: SD-JWT VC

    @Test func sdJWTPresentationDisclosesOnlyTheRequestedClaims() async throws {
        let request = try await resolved()
        let credential = try sdJWT.credential()
        let selection = try request.match([credential]).preferredSelection()
        let config = walletConfig(verifier)
        let (token, state) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: config))
        #expect(state == TestVerifier.state)
        let presentations = try #require(token["my_credential"])
        #expect(presentations.count == 1)
        let text = try #require(presentations.first?.stringValue)
        let presented = try SDJWT(parsing: text)
        // family_name, given_name, address (the ancestor) and address.street_address — not birthdate, locality,
        // postal_code or nationalities.
        let names = presented.disclosures.map { $0.claimName ?? "[element]" }.sorted()
        #expect(names == ["address", "family_name", "given_name", "street_address"])
        let kb = try #require(presented.keyBindingJWT)
        let kbClaims = try kb.payloadJSON()
        #expect(kbClaims["aud"] == .string(verifier.clientId))  // the full Client Identifier, prefix included
        #expect(kbClaims["nonce"] == .string(TestVerifier.nonce))
        #expect(kbClaims["iat"] == .integer(Int64(TestClock.now.timeIntervalSince1970)))
        #expect(kb.type == "kb+jwt")

        let outcome = try await VPTokenValidation.verifySDJWTPresentation(
            .string(text), query: try #require(request.dcqlQuery.credentialQuery(id: "my_credential")), clientId: verifier.clientId,
            nonce: TestVerifier.nonce, issuerKeySource: .x5c(anchors: sdJWT.anchors), at: TestClock.now)
        #expect(outcome.keyBinding?.audience == verifier.clientId)
        #expect(outcome.processedClaims["birthdate"] == nil)
        #expect(outcome.processedClaims["address"]?["street_address"] == "123 Main St")
        try VPTokenValidation.validateStructure(token, against: request.dcqlQuery)
    }

    @Test func sdJWTPresentationIsBoundToClientIdAndNonce() async throws {
        let request = try await resolved()
        let selection = try request.match([try sdJWT.credential()]).preferredSelection()
        let (token, _) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier)))
        let presentation = try #require(token["my_credential"]?.first)
        let query = try #require(request.dcqlQuery.credentialQuery(id: "my_credential"))
        // Replayed to another verifier, or with another nonce, the KB-JWT does not verify.
        await expectError({
            try await VPTokenValidation.verifySDJWTPresentation(
                presentation, query: query, clientId: "x509_san_dns:other.example", nonce: TestVerifier.nonce,
                issuerKeySource: .x5c(anchors: sdJWT.anchors), at: TestClock.now)
        }) { if case .invalidPresentation(queryId: "my_credential", _) = $0 { return true } else { return false } }
        await expectError({
            try await VPTokenValidation.verifySDJWTPresentation(
                presentation, query: query, clientId: verifier.clientId, nonce: "another-nonce",
                issuerKeySource: .x5c(anchors: sdJWT.anchors), at: TestClock.now)
        }) { if case .invalidPresentation(queryId: "my_credential", _) = $0 { return true } else { return false } }
        // The same host without the prefix is another audience (§14.10).
        await expectError({
            try await VPTokenValidation.verifySDJWTPresentation(
                presentation, query: query, clientId: TestVerifier.host, nonce: TestVerifier.nonce,
                issuerKeySource: .x5c(anchors: sdJWT.anchors), at: TestClock.now)
        }) { if case .invalidPresentation = $0 { return true } else { return false } }
    }

    @Test func holderKeyMustBeTheConfirmationKey() async throws {
        let request = try await resolved()
        guard case .sdJWTVC(var credential) = try sdJWT.credential() else { throw TestFailure("not an SD-JWT VC") }
        credential.holderKey = mdoc.deviceKey  // a key of another credential
        let selection = try request.match([.sdJWTVC(credential)]).preferredSelection()
        await expectError(.presentationFailed("the holder key is not the credential's cnf key")) {
            try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier))
        }
    }

    @Test func noClaimsDisclosesNothingSelectivelyDisclosable() async throws {
        let query = try DCQLQuery(credentials: [try .sdJWTVC(id: "pid", vctValues: [identityVCT])])
        let request = try await resolved(query)
        let selection = try request.match([try sdJWT.credential()]).preferredSelection()
        let (token, _) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier)))
        let presented = try SDJWT(parsing: try #require(token["pid"]?.first?.stringValue))
        #expect(presented.disclosures.isEmpty)
        #expect(presented.keyBindingJWT != nil)
    }

    @Test func credentialWithoutHolderBinding() async throws {
        let query = try DCQLQuery(credentials: [
            try .sdJWTVC(id: "pid", vctValues: [identityVCT], claims: [try ClaimsQuery(path: ["given_name"])], requireCryptographicHolderBinding: false)
        ])
        let request = try await resolved(query)
        let unbound = try sdJWT.credential(holderBound: false)
        let selection = try request.match([unbound]).preferredSelection()
        let (token, _) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier)))
        let text = try #require(token["pid"]?.first?.stringValue)
        #expect(text.hasSuffix("~"))
        _ = try await VPTokenValidation.verifySDJWTPresentation(
            .string(text), query: try #require(query.credentialQuery(id: "pid")), clientId: verifier.clientId, nonce: TestVerifier.nonce,
            issuerKeySource: .x5c(anchors: sdJWT.anchors), at: TestClock.now)
    }

    @Test func transactionDataHashesInKeyBindingJWT() async throws {
        let entry: JSONObject = ["type": "urn:example:payment", "credential_ids": ["my_credential"], "transaction_data_hashes_alg": ["sha-256"]]
        let encoded = Base64URL.encode(entry.serialized())
        let config = walletConfig(verifier) { $0.supportedTransactionDataTypes = ["urn:example:payment"] }
        let request = try await resolved(config: config) { $0["transaction_data"] = [.string(encoded)] }
        let selection = try request.match([try sdJWT.credential()]).preferredSelection()
        let (token, _) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: config))
        let presentation = try #require(token["my_credential"]?.first)
        let presented = try SDJWT(parsing: try #require(presentation.stringValue))
        let kbClaims = try #require(try presented.keyBindingJWT?.payloadJSON())
        let expectedHash = Base64URL.encode(SHA256.hash(data: Data(encoded.utf8)))
        #expect(kbClaims["transaction_data_hashes"] == [.string(expectedHash)])
        #expect(kbClaims["transaction_data_hashes_alg"] == "sha-256")
        _ = try await VPTokenValidation.verifySDJWTPresentation(
            presentation, query: try #require(request.dcqlQuery.credentialQuery(id: "my_credential")), clientId: verifier.clientId,
            nonce: TestVerifier.nonce, issuerKeySource: .x5c(anchors: sdJWT.anchors), transactionData: request.transactionData, at: TestClock.now)
    }

    @Test func multiplePresentationsForOneQuery() async throws {
        let query = try DCQLQuery(credentials: [
            try .sdJWTVC(id: "pid", vctValues: [identityVCT], claims: [try ClaimsQuery(path: ["family_name"])], multiple: true)
        ])
        let request = try await resolved(query)
        let match = request.match([try sdJWT.credential(id: "a"), try sdJWT.credential(id: "b")])
        let selection = try match.select(["pid": ["a", "b"]])
        let (token, _) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier)))
        #expect(token["pid"]?.count == 2)
        try VPTokenValidation.validateStructure(token, against: query)
    }

    // MARK: mdoc

    static let mdlQuery: JSONObject = [
        "credentials": [[
            "id": "mdl", "format": "mso_mdoc", "meta": ["doctype_value": "org.iso.18013.5.1.mDL"],
            "claims": [
                ["path": ["org.iso.18013.5.1", "family_name"], "intent_to_retain": false],
                ["path": ["org.iso.18013.5.1", "given_name"]],
                ["path": ["org.iso.18013.5.1", "age_over_18"], "intent_to_retain": true],
            ],
        ]]
    ]

    @Test(arguments: [ResponseMode.directPostJWT, .directPost])
    func mdocPresentationBoundToTheHandover(_ mode: ResponseMode) async throws {
        let query = try DCQLQuery(json: Self.mdlQuery)
        let request = try await resolved(query, mode: mode)
        let selection = try request.match([try mdoc.credential()]).preferredSelection()
        let (token, state) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier)))
        #expect(state == TestVerifier.state)
        let presentation = try #require(token["mdl"]?.first)
        // B.2.6.1: the thumbprint of the encryption key for direct_post.jwt, null otherwise.
        let thumbprint = mode == .directPostJWT ? verifier.encryptionJWK.thumbprint() : nil
        #expect(request.destination.encryption?.keyThumbprint == thumbprint)
        let handover = OpenID4VPHandover(
            clientId: verifier.clientId, nonce: TestVerifier.nonce, jwkThumbprint: thumbprint, responseURI: TestVerifier.responseURI)
        let mdlQuery = try #require(query.credentialQuery(id: "mdl"))
        let document = try await VPTokenValidation.verifyMDocPresentation(
            presentation, query: mdlQuery, handover: handover, verifier: mdoc.verifier, at: TestClock.now)
        #expect(document.issuerSignedElements[MDL.namespace]?.keys.sorted() == ["age_over_18", "family_name", "given_name"])

        // Any other handover (thumbprint flipped, other client, other nonce) fails DeviceAuth.
        for other in [
            OpenID4VPHandover(clientId: verifier.clientId, nonce: TestVerifier.nonce, jwkThumbprint: thumbprint == nil ? verifier.encryptionJWK.thumbprint() : nil, responseURI: TestVerifier.responseURI),
            OpenID4VPHandover(clientId: TestVerifier.host, nonce: TestVerifier.nonce, jwkThumbprint: thumbprint, responseURI: TestVerifier.responseURI),
            OpenID4VPHandover(clientId: verifier.clientId, nonce: "other", jwkThumbprint: thumbprint, responseURI: TestVerifier.responseURI),
        ] {
            await expectError({
                try await VPTokenValidation.verifyMDocPresentation(presentation, query: mdlQuery, handover: other, verifier: mdoc.verifier, at: TestClock.now)
            }) { if case .invalidPresentation(queryId: "mdl", _) = $0 { return true } else { return false } }
        }
    }

    @Test func mdocAndSDJWTTogether() async throws {
        let query = try DCQLQuery(credentials: [
            try .sdJWTVC(id: "pid", vctValues: [identityVCT], claims: [try ClaimsQuery(path: ["family_name"])]),
            try .mdoc(id: "mdl", doctype: MDL.docType, claims: [try ClaimsQuery(path: ["org.iso.18013.5.1", "age_over_18"])]),
        ])
        let request = try await resolved(query)
        let selection = try request.match([try mdoc.credential(), try sdJWT.credential()]).preferredSelection()
        let (token, _) = try vpToken(try await createAuthorizationResponse(request: request, selectedCredentials: selection, walletConfig: walletConfig(verifier)))
        #expect(token.entries.map(\.queryId) == ["pid", "mdl"])
        try VPTokenValidation.validateStructure(token, against: query)

        // The verifier's whole check (§8.6).
        let context = VerifierContext(
            clientId: verifier.clientId, nonce: TestVerifier.nonce, responseURI: TestVerifier.responseURI,
            encryptionKeyThumbprint: verifier.encryptionJWK.thumbprint(), mdocVerifier: mdoc.verifier,
            sdJWTIssuerKeySource: .x5c(anchors: sdJWT.anchors), instant: TestClock.now)
        let verified = try await VPTokenValidation.verify(token, against: query, context: context)
        #expect(verified.discarded.isEmpty)
        #expect(verified.accepted["pid"]?.count == 1 && verified.accepted["mdl"]?.count == 1)
        // A presentation that fails is discarded; the token then misses a required query and is rejected.
        var unencrypted = context
        unencrypted.encryptionKeyThumbprint = nil
        await expectError({ try await VPTokenValidation.verify(token, against: query, context: unencrypted) }) {
            if case .invalidVPToken(let reason) = $0 { return reason.hasPrefix("after discarding failed presentations") }
            return false
        }
        // With the mdoc query optional, the same failure only discards the mdoc.
        let optionalMdoc = try DCQLQuery(credentials: query.credentials, credentialSets: [
            try CredentialSetQuery(options: [["pid"]]), try CredentialSetQuery(options: [["mdl"]], required: false),
        ])
        let partial = try await VPTokenValidation.verify(token, against: optionalMdoc, context: unencrypted)
        #expect(partial.accepted.keys.sorted() == ["pid"])
        #expect(partial.discarded.map(\.queryId) == ["mdl"])
    }

    // MARK: Refusals

    @Test func emptyOrForeignSelections() async throws {
        let request = try await resolved()
        let other = try DCQLQuery(credentials: [try .sdJWTVC(id: "x", vctValues: [identityVCT])])
        let foreign = try DCQLMatch(query: other, credentials: [try sdJWT.credential()]).preferredSelection()
        await expectError(.invalidSelection("the selection was made for another DCQL query")) {
            try await createAuthorizationResponse(request: request, selectedCredentials: foreign, walletConfig: walletConfig(verifier))
        }
        let optionalOnly = try DCQLQuery(credentials: [try .sdJWTVC(id: "x", vctValues: ["https://example.com/none"])],
                                         credentialSets: [try CredentialSetQuery(options: [["x"]], required: false)])
        let optionalRequest = try await resolved(optionalOnly)
        let nothing = try optionalRequest.match([]).preferredSelection()
        await expectError(.requiredCredentialsUnavailable) {
            try await createAuthorizationResponse(request: optionalRequest, selectedCredentials: nothing, walletConfig: walletConfig(verifier))
        }
    }

    /// A required credential the wallet does not hold: access_denied, and no vp_token at all.
    @Test func requiredNonMatchingCredentialAnswersAccessDenied() async throws {
        let http = FakeHTTPClient { _ in FakeHTTPClient.json([:]) }
        let config = walletConfig(verifier, http: http)
        let request = try await resolved(config: config)
        let match = request.match([try sdJWT.credential(vct: "https://example.com/unrelated")])
        #expect(!match.isSatisfiable)
        var failure: OpenID4VPError?
        do {
            _ = try match.preferredSelection()
        } catch {
            failure = error
        }
        #expect(failure == .requiredCredentialsUnavailable)
        let response = AuthorizationResponse.error(AuthorizationErrorResponse(try #require(failure), state: request.state))
        #expect(try await submitAuthorizationResponse(resolvedRequest: request, response: response, walletConfig: config)
            == .success(redirectURI: nil, responseBody: [:]))
        let received = try ReceivedAuthorizationResponse.parse(formBody: try #require(http.requests.first?.body), decryptionKey: verifier.encryptionKey)
        #expect(received.response == .error(AuthorizationErrorResponse(error: .accessDenied, errorDescription: OpenID4VPError.requiredCredentialsUnavailable.description, state: TestVerifier.state)))
        #expect(received.response.parameters["vp_token"] == nil)
    }
}
