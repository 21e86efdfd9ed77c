import Foundation
import SDJWT
import TesseraJOSE
import Testing

/// Every case of Fixtures/rfc9901-examples.json (15) and Fixtures/sd-jwt-python-testcases.json (17): the issued
/// SD-JWT, the holder's selection, and the presentation (with KB-JWT where the case has one).
@Suite("RFC 9901 example and sd-jwt-python vectors")
struct ExampleVectorTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let file: String
        let name: String
        var testDescription: String { "\(file.prefix(8)) \(name)" }
    }

    static let vectors: [Vector] = {
        var all: [Vector] = []
        for file in ["rfc9901-examples.json", "sd-jwt-python-testcases.json"] {
            let names = (try? Fixtures.cases(file).compactMap { $0["name"]?.stringValue }) ?? []
            all += names.map { Vector(file: file, name: $0) }
        }
        return all
    }()

    /// `header_mod` has `kid: 42`; RFC 7515 §4.1.4 makes `kid` a string, and TesseraJOSE rejects the header.
    static let numericKid: Set<String> = ["header_mod"]

    static func load(_ vector: Vector) throws -> JSONValue {
        guard let found = try Fixtures.cases(vector.file).first(where: { $0["name"]?.stringValue == vector.name }) else {
            throw MissingMember(path: vector.name)
        }
        return found
    }

    static func issuerKeys(_ vector: JSONValue) throws -> [JWSVerificationKey] {
        let issuer = try vector.member("keys").member("issuer")
        if let list = issuer.arrayValue {
            return try list.map { try verificationKey(try $0.object("public_jwk")) }
        }
        return [try verificationKey(try issuer.object("public_jwk"))]
    }

    static func policy(_ vector: JSONValue, requireKeyBinding: Bool) throws -> SDJWTVerificationPolicy {
        let settings = try vector.member("settings")
        return SDJWTVerificationPolicy(
            issuerKeySource: .keys(try issuerKeys(vector)), requireKeyBinding: requireKeyBinding,
            expectedAudience: try settings.string("verifier"), expectedNonce: try settings.string("key_binding_nonce"))
    }

    @Test("vector counts") func counts() {
        #expect(Self.vectors.filter { $0.file.hasPrefix("rfc9901") }.count == 15)
        #expect(Self.vectors.filter { $0.file.hasPrefix("sd-jwt-python") }.count == 17)
    }

    @Test("issued SD-JWT: parses, every Disclosure and digest as published, verifies with all Disclosures",
          arguments: vectors)
    func issuance(_ vector: Vector) async throws {
        let data = try Self.load(vector)
        let issuance = try data.member("issuance")
        let text = try issuance.string("sd_jwt")
        if Self.numericKid.contains(vector.name) {
            #expect(sdjwtError { _ = try SDJWT(parsing: text) } == .malformedIssuerSignedJWT(.invalidHeaderParameter("kid")))
            return
        }
        let sdJWT = try SDJWT(parsing: text)
        #expect(sdJWT.keyBindingJWT == nil)
        #expect(sdJWT.payload == (try issuance.object("sd_jwt_payload")))
        let published = try issuance.array("disclosures")
        #expect(sdJWT.disclosures.map(\.encoded) == (try published.map { try $0.string("disclosure") }))
        for (disclosure, expected) in zip(sdJWT.disclosures, published) {
            #expect(disclosure.digest() == (try expected.string("digest")))
            #expect(disclosure.claimName == expected["claim_name"]?.stringValue)
            #expect(disclosure.claimValue == (try expected.member("claim_value")))
        }
        if sdJWT.serialization == .compact { #expect(sdJWT.compact == text) }

        let outcome = await SDJWTVerifier(policy: try Self.policy(data, requireKeyBinding: false), clock: vectorClock)
            .verify(text)
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.processedClaims["_sd_alg"] == nil)
        #expect(!outcome.processedClaims.description.contains("\"_sd\""))
        #expect(!outcome.processedClaims.description.contains("\"...\""))
        // With every Disclosure, the user claims come back whole.
        let user = try data.member("input").object("user_claims")
        for (key, value) in user { #expect(outcome.processedClaims[key] == value, "\(key)") }
    }

    @Test("holder selection: our minimal closure for the case's choice equals the selected Disclosures",
          arguments: vectors)
    func selection(_ vector: Vector) throws {
        guard !Self.numericKid.contains(vector.name) else { return }
        let data = try Self.load(vector)
        let sdJWT = try SDJWT(parsing: try data.member("issuance").string("sd_jwt"))
        let presentation = try data.member("presentation")
        let paths = try holderPaths(try presentation.member("holder_disclosed_claims"))
        let theirs = try presentation.array("selected_disclosures").map { try $0.string("disclosure") }
        if vector.name == "w3c-vc_for_slide_deck" {
            // The case asks for `credentialSubject`, which the credential does not have: sd-jwt-python silently
            // discloses nothing, we refuse the path.
            #expect(theirs.isEmpty)
            #expect(sdjwtError { _ = try SDJWTPresentation.disclosures(of: sdJWT, disclosing: paths) } == .claimNotFound(paths[0]))
            return
        }
        let ours = try SDJWTPresentation.disclosures(of: sdJWT, disclosing: paths, includingNested: false)
        #expect(Set(ours.map(\.encoded)) == Set(theirs))
        #expect(ours.count == theirs.count)
        // The default (a selected claim comes with everything inside it) discloses at least as much.
        let whole = try SDJWTPresentation.disclosures(of: sdJWT, disclosing: paths)
        #expect(Set(whole.map(\.encoded)).isSuperset(of: theirs))
    }

    @Test("presentation: verifies (KB-JWT where present) to exactly the expected claims", arguments: vectors)
    func presentation(_ vector: Vector) async throws {
        let data = try Self.load(vector)
        let presentation = try data.member("presentation")
        let text = try presentation.string("sd_jwt_presentation")
        if Self.numericKid.contains(vector.name) {
            #expect(sdjwtError { _ = try SDJWT(parsing: text) } == .malformedIssuerSignedJWT(.invalidHeaderParameter("kid")))
            return
        }
        let kb = presentation["kb_jwt"]?.objectValue
        let sdJWT = try SDJWT(parsing: text)
        #expect((sdJWT.keyBindingJWT != nil) == (kb != nil))
        if let kb {
            #expect(sdJWT.sdHashInput == kb["sd_hash_input"]?.stringValue)
            #expect(try sdJWT.hashAlgorithm().base64URLDigest(of: sdJWT.sdHashInput) == kb["sd_hash"]?.stringValue)
            #expect(sdJWT.keyBindingJWT?.compact == kb["serialized"]?.stringValue)
        }
        let verifier = SDJWTVerifier(policy: try Self.policy(data, requireKeyBinding: kb != nil), clock: vectorClock)
        let outcome = await verifier.verify(text)
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.processedClaims == (try data.member("expected").object("verified_claims")))
        if kb != nil {
            #expect(outcome.keyBinding?.nonce == "1234567890")
            #expect(outcome.keyBinding?.audience == (try data.member("settings").string("verifier")))
        }
        if let expectedUser = data["expected"]?["expect_verified_user_claims"]?.objectValue {
            for (key, value) in expectedUser { #expect(outcome.processedClaims[key] == value, "\(key)") }
        }
    }

    @Test("JSON serialization: general has two signatures; the Disclosures and KB-JWT sit with the first")
    func jsonGeneral() throws {
        let data = try Self.load(Vector(file: "rfc9901-examples.json", name: "json_serialization_general"))
        let sdJWT = try SDJWT(parsing: try data.member("presentation").string("sd_jwt_presentation"))
        #expect(sdJWT.serialization == .jsonGeneral)
        #expect(sdJWT.additionalIssuerSignatures.count == 1)
        #expect(sdJWT.disclosures.count == 2)
        let flattened = try Self.load(Vector(file: "rfc9901-examples.json", name: "json_serialization_flattened"))
        #expect(try SDJWT(parsing: try flattened.member("presentation").string("sd_jwt_presentation")).serialization == .jsonFlattened)
    }

    @Test("our own KB-JWT over the vector's presentation verifies; the published KB-JWT still does")
    func ourKeyBinding() async throws {
        let data = try Self.load(Vector(file: "rfc9901-examples.json", name: "simple"))
        let sdJWT = try SDJWT(parsing: try data.member("issuance").string("sd_jwt"))
        let holder = try signingKey(try data.member("keys").member("holder").object("private_jwk"))
        let paths = try holderPaths(try data.member("presentation").member("holder_disclosed_claims"))
        let text = try SDJWTPresentation.present(
            sdJWT, disclosing: paths, includingNested: false, holderKey: holder, audience: "https://verifier.example.org", nonce: "1234567890",
            clock: vectorClock)
        let outcome = await SDJWTVerifier(policy: try Self.policy(data, requireKeyBinding: true), clock: vectorClock)
            .verify(text)
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.processedClaims == (try data.member("expected").object("verified_claims")))
    }
}
