import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import TesseraTrust
import Testing
import X509
import TesseraTrustTesting

/// Serves canned documents by URL and records what was asked for.
final class StaticMetadataFetcher: JWTVCIssuerMetadataFetcher {
    let documents: [String: String]
    init(_ documents: [String: String]) { self.documents = documents }
    struct NotFound: Error {}
    func fetch(_ url: URL) async throws -> Data {
        guard let document = documents[url.absoluteString] else { throw NotFound() }
        return Data(document.utf8)
    }
}

@Suite("Issuer keys: x5c and JWT VC Issuer Metadata")
struct IssuerKeySourceTests {
    struct PKI {
        let root: IssuedCertificate
        let leaf: IssuedCertificate
        let leafKey: JWSSigningKey
        init(seed: UInt64) throws {
            var random = SeededRandomSource(seed: seed).generator
            let from = Forge.now.addingTimeInterval(-86_400)
            let until = Forge.now.addingTimeInterval(86_400 * 365)
            root = try X5CTestPKI.issueRoot(.init(commonName: "PID Root", notBefore: from, notAfter: until), random: &random)
            leaf = try X5CTestPKI.issue(.init(commonName: "PID Issuer", notBefore: from, notAfter: until), by: root, random: &random)
            guard case .p256(let key) = leaf.privateKey else { throw MissingMember(path: "P-256 leaf") }
            leafKey = .es256(key)
        }
        var x5c: JSONValue { get throws { .array([.string(try leaf.derEncoded().base64EncodedString())]) } }
    }

    @Test("x5c: chain validated against the anchors, the leaf returned; another root is refused")
    func x5c() async throws {
        let pki = try PKI(seed: 11)
        let text = try Forge.sdJWT(Forge.payload(), header: ["typ": "dc+sd-jwt", "x5c": try pki.x5c], key: pki.leafKey)
        let outcome = await Forge.verify(text, Forge.policy(source: .x5c(anchors: [pki.root.certificate])))
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.issuerCertificate == pki.leaf.certificate)
        let other = try PKI(seed: 12)
        let untrusted = await Forge.verify(text, Forge.policy(source: .x5c(anchors: [other.root.certificate])))
        #expect(untrusted.errors.count == 1)
        if case .x5cChainInvalid? = untrusted.errors.first {} else { Issue.record("expected x5cChainInvalid, got \(untrusted.errors)") }
        #expect(untrusted.processedClaims.isEmpty)
        // A valid chain but the JWT signed by another key.
        let wrongKey = try Forge.sdJWT(Forge.payload(), header: ["typ": "dc+sd-jwt", "x5c": try pki.x5c], key: Forge.otherKey)
        #expect(await Forge.verify(wrongKey, Forge.policy(source: .x5c(anchors: [pki.root.certificate]))).errors
            == [.issuerSignatureInvalid(.invalidSignature)])
        // No x5c header at all.
        #expect(await Forge.verify(try Forge.sdJWT(Forge.payload()), Forge.policy(source: .x5c(anchors: [pki.root.certificate]))).errors
            == [.issuerKeyUnresolved("no x5c header")])
    }

    static let issuer = "https://issuer.example.com/tenant/7"
    static let metadataURL = "https://issuer.example.com/.well-known/jwt-vc-issuer/tenant/7"

    func payload() -> JSONObject {
        var payload = Forge.payload()
        payload["iss"] = .string(Self.issuer)
        return payload
    }

    func jwks(_ keys: [(JWSSigningKey, String)]) -> String {
        JSONValue.object(["keys": .array(keys.map { .object($0.0.publicJWK.with(kid: $0.1).jsonObject) })]).description
    }

    @Test("the well-known URL is inserted between host and path")
    func metadataURL() throws {
        #expect(try JWTVCIssuerMetadata.metadataURL(forIssuer: Self.issuer).absoluteString == Self.metadataURL)
        #expect(try JWTVCIssuerMetadata.metadataURL(forIssuer: "https://issuer.example.com").absoluteString
            == "https://issuer.example.com/.well-known/jwt-vc-issuer")
        #expect(try JWTVCIssuerMetadata.metadataURL(forIssuer: "https://issuer.example.com:8443/").absoluteString
            == "https://issuer.example.com:8443/.well-known/jwt-vc-issuer")
        #expect(sdjwtError { _ = try JWTVCIssuerMetadata.metadataURL(forIssuer: "http://issuer.example.com") }
            == .issuerMetadataInvalid("iss is not an https URL without query or fragment"))
    }

    @Test("metadata with inline jwks and with jwks_uri; the key chosen by kid")
    func metadata() async throws {
        let jwks = jwks([(Forge.otherKey, "k0"), (Forge.issuerKey, "k1")])
        let inline = StaticMetadataFetcher([
            Self.metadataURL: #"{"issuer":"\#(Self.issuer)","jwks":\#(jwks)}"#,
        ])
        let text = try Forge.sdJWT(payload(), header: ["typ": "dc+sd-jwt", "kid": "k1"])
        let outcome = await Forge.verify(text, Forge.policy(source: .issuerMetadata(inline)))
        #expect(outcome.isValid, "\(outcome.errors)")
        let byURI = StaticMetadataFetcher([
            Self.metadataURL: #"{"issuer":"\#(Self.issuer)","jwks_uri":"https://issuer.example.com/jwks"}"#,
            "https://issuer.example.com/jwks": jwks,
        ])
        #expect(await Forge.verify(text, Forge.policy(source: .issuerMetadata(byURI))).isValid)
        // x5cOrIssuerMetadata falls back to the metadata when there is no x5c.
        #expect(await Forge.verify(text, Forge.policy(source: .x5cOrIssuerMetadata(anchors: [], fetcher: byURI))).isValid)
        // kid pointing at the other key: signature invalid; unknown kid: unresolved.
        let k0 = try Forge.sdJWT(payload(), header: ["typ": "dc+sd-jwt", "kid": "k0"])
        #expect(await Forge.verify(k0, Forge.policy(source: .issuerMetadata(inline))).errors == [.issuerSignatureInvalid(.invalidSignature)])
        let unknown = try Forge.sdJWT(payload(), header: ["typ": "dc+sd-jwt", "kid": "k9"])
        #expect(await Forge.verify(unknown, Forge.policy(source: .issuerMetadata(inline))).errors
            == [.issuerKeyUnresolved("no single key with the kid")])
        let noKid = try Forge.sdJWT(payload())
        #expect(await Forge.verify(noKid, Forge.policy(source: .issuerMetadata(inline))).errors
            == [.issuerKeyUnresolved("no kid and the JWK Set does not hold exactly one key")])
    }

    static let refusalCases: [(String, SDJWTError)] = [
        (#"{"issuer":"https://evil.example","jwks":{"keys":[]}}"#, .issuerMetadataInvalid("issuer does not equal iss")),
        (#"{"issuer":"\#(IssuerKeySourceTests.issuer)"}"#, .issuerMetadataInvalid("exactly one of jwks and jwks_uri is required")),
        (#"{"issuer":"\#(IssuerKeySourceTests.issuer)","jwks":{"keys":[]},"jwks_uri":"https://x.example/j"}"#,
         .issuerMetadataInvalid("exactly one of jwks and jwks_uri is required")),
        (#"{"issuer":"\#(IssuerKeySourceTests.issuer)","jwks":{}}"#, .issuerMetadataInvalid("JWK Set has no keys array")),
        (#"{"issuer":"\#(IssuerKeySourceTests.issuer)","jwks_uri":"http://issuer.example.com/jwks"}"#, .issuerMetadataInvalid("jwks_uri is not an https URL")),
        (#"[1]"#, .issuerMetadataInvalid("\(IssuerKeySourceTests.metadataURL) is not a JSON object")),
    ]

    @Test("metadata refusals", arguments: refusalCases)
    func metadataRefusals(_ document: String, _ expected: SDJWTError) async throws {
        let fetcher = StaticMetadataFetcher([Self.metadataURL: document])
        let text = try Forge.sdJWT(payload(), header: ["typ": "dc+sd-jwt", "kid": "k1"])
        #expect(await Forge.verify(text, Forge.policy(source: .issuerMetadata(fetcher))).errors == [expected])
    }

    @Test("metadata fetch failure and a credential without iss")
    func metadataFetch() async throws {
        let text = try Forge.sdJWT(payload(), header: ["typ": "dc+sd-jwt", "kid": "k1"])
        #expect(await Forge.verify(text, Forge.policy(source: .issuerMetadata(StaticMetadataFetcher([:])))).errors
            == [.issuerMetadataInvalid("fetching \(Self.metadataURL) failed")])
        var noIss = payload()
        noIss["iss"] = nil
        #expect(await Forge.verify(try Forge.sdJWT(noIss), Forge.policy(source: .issuerMetadata(StaticMetadataFetcher([:])))).errors
            == [.issuerKeyUnresolved("no iss claim")])
    }
}
