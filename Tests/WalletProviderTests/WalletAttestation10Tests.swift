import Crypto
import Foundation
import ITWalletProtocol
import SDJWT
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraJOSE
import Testing

/// IT-Wallet 1.0 `POST /wallet-attestations`: a `wp-war+jwt` as io-react-native-wallet v1.0.0 sends it gets the
/// Wallet Attestation in `jwt`, `dc+sd-jwt` and `mso_mdoc`, each verified on its own by its format's verifier with
/// only the signing root as trust input, all three bound to the request's key with the same validity.
@Suite(.serialized)
struct WalletAttestation10Tests {
    /// 2026-06-01T12:00:00Z: every certificate and instant of the fixture is placed around it.
    static let pinned = Date(timeIntervalSince1970: 1_780_315_200)

    @Test(arguments: ProviderDatabases.all)
    func threeFormatsEachVerifyAndBindTheSameKeyAndValidity(database: String) async throws {
        // On the shared PostgreSQL, other suites purge nonces by the real time: a past instant would lose ours.
        let start = database == "sqlite" ? Self.pinned : Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let fixture = try await ProviderFixture(database: database, at: start)
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        let request = try await instance.request10()
        let answer = try await instance.post(try request.assertion())
        #expect(answer.status == 200)
        #expect(answer.header("Cache-Control") == "no-store")
        let formats = try WalletAttestationChecks.formats(answer)
        let now = fixture.clock.now()
        let iat = Int64(now.timeIntervalSince1970), exp = iat + 3600
        let entityConfiguration = String(decoding: try await fixture.request(.get, ITWalletEndpoint.entityConfiguration).body, as: UTF8.self)

        // jwt: x5c to the root; trust_chain[0] is the Entity Configuration the provider serves; the claims of 1.0.
        let jwt = try await WalletAttestationChecks.jwt(try #require(formats["jwt"]), root: fixture.signingRoot, at: now)
        #expect(jwt.header["kid"]?.stringValue == fixture.signingKeyID)
        #expect(jwt.header["trust_chain"]?.arrayValue?.first?.stringValue == entityConfiguration)
        #expect(jwt.header["trust_chain"]?.arrayValue?.count == 1, "no superiors configured")
        // A relying party that trusts the federation instead finds the same key in the chain's wallet_provider metadata.
        let published = try CompactJWS(parsing: entityConfiguration).payloadJSON()["metadata"]?["wallet_provider"]?["jwks"]?["keys"]?.arrayValue
        let key = try JWK(json: try #require(published?.first?.objectValue))
        #expect(key.kid == fixture.signingKeyID)
        try CompactJWS(parsing: try #require(formats["jwt"])).verify(with: JWSVerificationKey(jwk: key))
        #expect(jwt.claims["iss"]?.stringValue == fixture.server.baseURL)
        #expect(jwt.claims["sub"]?.stringValue == request.thumbprint)
        #expect(jwt.claims["aal"]?.stringValue != nil)
        #expect(jwt.claims["wallet_name"]?.stringValue == "Tessera Wallet")
        #expect(jwt.claims["wallet_link"]?.stringValue == "https://tessera.invalid/wallet")
        #expect(jwt.claims["iat"]?.int64Value == iat && jwt.claims["exp"]?.int64Value == exp)
        let cnf = try JWK(json: try #require(jwt.claims["cnf"]?["jwk"]?.objectValue))
        #expect(cnf.thumbprintBase64URL() == request.thumbprint)

        // dc+sd-jwt: the SD-JWT VC verifier (issuer key from x5c); wallet_name and wallet_link are the Disclosures.
        let sdJWT = await WalletAttestationChecks.sdJWT(try #require(formats["dc+sd-jwt"]), root: fixture.signingRoot, at: now)
        #expect(sdJWT.isValid, "\(sdJWT.errors)")
        let disclosures = try #require(sdJWT.sdJWT?.disclosures)
        let disclosed = disclosures.compactMap { $0.claimName }
        #expect(Set(disclosed) == ["wallet_name", "wallet_link"])
        #expect(try #require(formats["dc+sd-jwt"]).hasSuffix("~"), "RFC 9901 issuance form")
        let claims = sdJWT.processedClaims
        #expect(claims["vct"]?.stringValue == fixture.server.baseURL + "/vct/v1.0/WalletAttestation")
        #expect(claims["wallet_name"]?.stringValue == "Tessera Wallet")
        #expect(claims["wallet_link"]?.stringValue == "https://tessera.invalid/wallet")
        #expect(claims["sub"]?.stringValue == request.thumbprint && claims["aal"] == jwt.claims["aal"])
        #expect(claims["iat"]?.int64Value == iat && claims["exp"]?.int64Value == exp)
        #expect(try JWK(json: try #require(claims["cnf"]?["jwk"]?.objectValue)).thumbprintBase64URL() == request.thumbprint)
        let sdHeader = try #require(sdJWT.sdJWT?.issuerSignedJWT.header)
        #expect(sdHeader["typ"]?.stringValue == "dc+sd-jwt")
        #expect(sdHeader["trust_chain"]?.arrayValue?.first?.stringValue == entityConfiguration)

        // mso_mdoc: base64url IssuerSigned; issuerAuth by the x5chain leaf, digests, deviceKey = cnf, same validity.
        let mdocText = try #require(formats["mso_mdoc"])
        #expect(!mdocText.contains("=") && !mdocText.contains("+") && !mdocText.contains("/"), "base64url without padding")
        let mdoc = try await WalletAttestationChecks.mdoc(mdocText, root: fixture.signingRoot, at: now)
        #expect(mdoc.failures.isEmpty, "\(mdoc.failures)")
        #expect(mdoc.mso.docType == "org.iso.18013.5.1.IT.WalletAttestation")
        #expect(mdoc.mso.deviceKeyInfo.deviceKey == COSEKey(request.key.publicKey))
        #expect(mdoc.mso.validityInfo.validFrom.date == now && mdoc.mso.validityInfo.validUntil.date == now.addingTimeInterval(3600))
        let elements = try #require(mdoc.elements["org.iso.18013.5.1.IT"])
        #expect(elements["sub"] == .text(request.thumbprint))
        #expect(elements["wallet_name"] == .text("Tessera Wallet"))
        #expect(elements["wallet_link"] == .text("https://tessera.invalid/wallet"))
        #expect(elements["aal"] == jwt.claims["aal"]?.stringValue.map(CBOR.text))
        #expect(Set(elements.keys) == ["sub", "aal", "wallet_name", "wallet_link"])
    }

    @Test func everySignedPartTamperedIsRefusedByItsVerifier() async throws {
        let fixture = try await ProviderFixture(at: Self.pinned)
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        let formats = try WalletAttestationChecks.formats(try await instance.post(try await instance.request10().assertion()))
        let now = fixture.clock.now()
        let root = fixture.signingRoot

        // jwt: a claim changed, the header's x5c replaced by another chain.
        let jwt = try #require(formats["jwt"])
        let parts = jwt.split(separator: ".").map(String.init)
        var claims = try CompactJWS(parsing: jwt).payloadJSON()
        claims["sub"] = "someone-else"
        let changedClaims = [parts[0], Base64URL.encode(claims.serialized()), parts[2]].joined(separator: ".")
        await #expect(throws: (any Error).self) { _ = try await WalletAttestationChecks.jwt(changedClaims, root: root, at: now) }
        var header = try CompactJWS(parsing: jwt).header
        let (otherIdentity, _) = try ProviderFixture.signingIdentity(at: now)
        header["x5c"] = .array(otherIdentity.x5c.map { .string($0) })
        let changedHeader = [Base64URL.encode(header.serialized()), parts[1], parts[2]].joined(separator: ".")
        await #expect(throws: (any Error).self) { _ = try await WalletAttestationChecks.jwt(changedHeader, root: root, at: now) }

        // dc+sd-jwt: a Disclosure changed (digest no longer in _sd), the issuer-signed payload changed (signature).
        let sdJWT = try #require(formats["dc+sd-jwt"])
        var pieces = sdJWT.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        pieces[1] = Base64URL.encode(Data(#"["c2FsdHNhbHRzYWx0c2FsdA","wallet_name","Evil Wallet"]"#.utf8))
        let badDisclosure = await WalletAttestationChecks.sdJWT(pieces.joined(separator: "~"), root: root, at: now)
        #expect(!badDisclosure.isValid)
        var signedPieces = sdJWT.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        let jwtParts = signedPieces[0].split(separator: ".").map(String.init)
        var payload = try CompactJWS(parsing: signedPieces[0]).payloadJSON()
        payload["aal"] = "https://example.org/LoA/high"
        signedPieces[0] = [jwtParts[0], Base64URL.encode(payload.serialized()), jwtParts[2]].joined(separator: ".")
        let badPayload = await WalletAttestationChecks.sdJWT(signedPieces.joined(separator: "~"), root: root, at: now)
        #expect(!badPayload.isValid)

        // mso_mdoc: an element's value changed (digest), the MSO's signature cut (issuerAuth).
        let mdocBytes = try Base64URL.decode(try #require(formats["mso_mdoc"]))
        let name = Data("Tessera Wallet".utf8)
        let changedElement = mdocBytes.replacingFirst(name, with: Data("Tessera Wallex".utf8))
        #expect(changedElement != mdocBytes)
        let elementFacts = try await WalletAttestationChecks.mdoc(Base64URL.encode(changedElement), root: root, at: now)
        #expect(elementFacts.failures.contains("digest of wallet_name"), "\(elementFacts.failures)")
        let signature = elementFacts.issuerSigned.issuerAuth.signature
        var flipped = signature
        flipped[flipped.startIndex] ^= 0x01
        let changedSignature = mdocBytes.replacingFirst(signature, with: flipped)
        let signatureFacts = try await WalletAttestationChecks.mdoc(Base64URL.encode(changedSignature), root: root, at: now)
        #expect(signatureFacts.failures.contains { $0.hasPrefix("issuerAuth") }, "\(signatureFacts.failures)")
    }

    @Test func theAttestationsExpireTogetherAtTheStatedInstant() async throws {
        let fixture = try await ProviderFixture(at: Self.pinned)
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        let formats = try WalletAttestationChecks.formats(try await instance.post(try await instance.request10().assertion()))
        let root = fixture.signingRoot
        let lastValid = Self.pinned.addingTimeInterval(3600), expired = Self.pinned.addingTimeInterval(3601 + 60)

        let jwt = try await WalletAttestationChecks.jwt(try #require(formats["jwt"]), root: root, at: lastValid)
        #expect(jwt.claims["exp"]?.int64Value == Int64(lastValid.timeIntervalSince1970))
        #expect(await WalletAttestationChecks.sdJWT(try #require(formats["dc+sd-jwt"]), root: root, at: lastValid).isValid)
        let late = await WalletAttestationChecks.sdJWT(try #require(formats["dc+sd-jwt"]), root: root, at: expired)
        #expect(!late.isValid, "past exp (and the 60 s skew) the SD-JWT verifier refuses it")
        #expect(try await WalletAttestationChecks.mdoc(try #require(formats["mso_mdoc"]), root: root, at: lastValid).failures.isEmpty)
        let lateMDoc = try await WalletAttestationChecks.mdoc(try #require(formats["mso_mdoc"]), root: root, at: expired)
        #expect(lateMDoc.failures == ["validity"])

        // A request whose own exp has passed is refused (403 invalid_request), and its nonce stays unused.
        let request = try await instance.request10()
        fixture.clock.set(Self.pinned.addingTimeInterval(3601))
        let stale = try await instance.post(try request.assertion())
        #expect(stale.status == 403 && stale.error == "invalid_request")
        fixture.clock.set(Self.pinned)
        #expect(try await instance.post(try request.assertion()).status == 200)
    }

    @Test func oneNonceRacedByManyRequestsGetsExactlyOneAttestation() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        let nonce = try await fixture.nonce()
        var assertions: [String] = []
        for _ in 0..<16 { assertions.append(try await instance.request10(nonce: nonce).assertion()) }
        let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for assertion in assertions {
                group.addTask {
                    let answer = try await instance.post(assertion)
                    return (answer.status, answer.error)
                }
            }
            return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
        }
        #expect(answers.filter { $0.0 == 200 }.count == 1)
        #expect(answers.filter { $0.0 == 403 && $0.1 == "invalid_request" }.count == 15)
    }
}
