import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

@Suite("Issuance and presentation")
struct IssuanceTests {
    static let claims: JSONObject = [
        "given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12",
        "age_equal_or_over": ["18": true, "21": true],
        "nationalities": ["DE", "FR"],
        "address": ["street_address": "Heidestraße 17", "locality": "Köln", "country": "DE"],
        "plain": ["kept": 1],
    ]
    /// `age_equal_or_over.18` in the command-line form is an index until resolved against the claims.
    static let disclosable = [
        "given_name", "family_name", "birthdate", "age_equal_or_over", "age_equal_or_over.18", "age_equal_or_over.21",
        "nationalities.*", "address", "address.street_address", "address.locality", "address.country",
    ].compactMap { try? ClaimsPathPointer(parsing: $0).resolvingNumericKeys(in: .object(claims)) }

    func issuer(seed: UInt64 = 7, decoys: ClosedRange<Int> = 0...0, hash: SDHashAlgorithm = .sha256) throws -> SDJWTIssuer {
        try SDJWTIssuer(
            signingKey: Forge.issuerKey, hashAlgorithm: hash, clock: Forge.clock, random: SeededRandomSource(seed: seed),
            decoyDigests: decoys)
    }

    func issue(seed: UInt64 = 7, decoys: ClosedRange<Int> = 0...0, hash: SDHashAlgorithm = .sha256) throws -> SDJWT {
        try issuer(seed: seed, decoys: decoys, hash: hash).issueVC(
            vct: "urn:eudi:pid:1", claims: Self.claims, disclosable: Self.disclosable,
            holderKey: Forge.holderKey.publicJWK, issuer: "https://issuer.example.com", validity: 86_400)
    }

    @Test("with every Disclosure the verifier gets the claims back exactly", arguments: SDHashAlgorithm.allCases)
    func roundTrip(_ hash: SDHashAlgorithm) async throws {
        let sdJWT = try issue(hash: hash)
        #expect(sdJWT.disclosures.count == 12)  // 11 pointers, nationalities.* matching two elements
        #expect(sdJWT.payload["_sd_alg"] == .string(hash.rawValue))
        #expect(sdJWT.issuerSignedJWT.type == "dc+sd-jwt")
        let outcome = await Forge.verify(sdJWT.compact)
        #expect(outcome.isValid, "\(outcome.errors)")
        for (key, value) in Self.claims { #expect(outcome.processedClaims[key] == value, "\(key)") }
        #expect(outcome.processedClaims["vct"] == "urn:eudi:pid:1")
        #expect(outcome.processedClaims["exp"] == .integer(1_800_086_400))
        // Nothing disclosable is in clear in the payload.
        let payloadText = sdJWT.payload.description
        for secret in ["Erika", "Mustermann", "1964", "Heidestra", "\"DE\""] { #expect(!payloadText.contains(secret)) }
        #expect(sdJWT.payload["plain"] == ["kept": 1])
    }

    @Test("salts are 128 bits from the injected random source; digests sorted; reproducible from the seed")
    func saltsAndOrder() throws {
        let a = try issue(seed: 9)
        let b = try issue(seed: 9)
        let c = try issue(seed: 10)
        #expect(a.disclosures.map(\.encoded) == b.disclosures.map(\.encoded))
        #expect(a.disclosures.map(\.salt) != c.disclosures.map(\.salt))
        for disclosure in a.disclosures { #expect(try Base64URL.decode(disclosure.salt).count == 16) }
        let top = a.payload["_sd"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(top == top.sorted() && top.count == 5)
        #expect(sdjwtError { _ = try SDJWTIssuer(signingKey: Forge.issuerKey, clock: Forge.clock, random: SystemRandomSource(), saltBytes: 15) }
            == .saltTooShort(bytes: 15))
    }

    @Test("decoy digests: counts within the range, indistinguishable, and the credential verifies")
    func decoys() async throws {
        let sdJWT = try issue(decoys: 2...4)
        let top = sdJWT.payload["_sd"]?.arrayValue ?? []
        #expect((5 + 2...5 + 4).contains(top.count))
        let digests = Set(sdJWT.disclosures.map { $0.digest() })
        let decoys = top.compactMap(\.stringValue).filter { !digests.contains($0) }
        #expect(decoys.count >= 2)
        for decoy in decoys { #expect(try Base64URL.decode(decoy).count == 32) }
        #expect(await Forge.verify(sdJWT.compact).isValid)
    }

    @Test("a random source that returns too few bytes is an error, not a short salt")
    func shortRandom() throws {
        struct Broken: RandomSource { func bytes(_ count: Int) -> Data { Data(count: count / 2) } }
        let issuer = try SDJWTIssuer(signingKey: Forge.issuerKey, clock: Forge.clock, random: Broken())
        #expect(sdjwtError { _ = try issuer.issue(claims: ["a": 1], disclosable: [try ClaimsPathPointer(parsing: "a")]) }
            == .randomSourceFailure)
    }

    @Test("issuance refusals: unknown path, reserved names, non-disclosable VC claims, bad header")
    func refusals() throws {
        let issuer = try issuer()
        let missing = try ClaimsPathPointer(parsing: "nope.0")
        #expect(sdjwtError { _ = try issuer.issue(claims: Self.claims, disclosable: [missing]) } == .disclosablePathNotFound(missing))
        #expect(sdjwtError { _ = try issuer.issue(claims: ["_sd": []], disclosable: []) } == .reservedClaimName("_sd"))
        #expect(sdjwtError { _ = try issuer.issue(claims: ["a": [["...": "x"]]], disclosable: []) } == .reservedClaimName("..."))
        for name in ["iss", "vct", "cnf", "status", "exp"] {
            #expect(sdjwtError {
                _ = try issuer.issueVC(vct: "v", claims: [:], disclosable: [try ClaimsPathPointer(keys: name)], holderKey: nil)
            } == .nonDisclosableClaim(name))
        }
        #expect(sdjwtError { _ = try issuer.issue(claims: ["a": 1], disclosable: [], header: ["crit": ["b64x"]]) }
            == .signingFailed(.invalidCritical("lists \"b64x\", which is absent")))
    }

    @Test("presentation: a path brings its ancestors and everything inside, nothing else")
    func closure() async throws {
        let sdJWT = try issue()
        func presented(_ paths: [String], nested: Bool = true) async throws -> JSONObject {
            let pointers = try paths.map { try ClaimsPathPointer(parsing: $0).resolvingNumericKeys(in: .object(Self.claims)) }
            let text = try SDJWTPresentation.present(
                sdJWT, disclosing: pointers, includingNested: nested, holderKey: Forge.holderKey,
                audience: Forge.audience, nonce: Forge.nonce, clock: Forge.clock)
            let outcome = await Forge.verify(text, Forge.policy(requireKeyBinding: true))
            #expect(outcome.isValid, "\(outcome.errors)")
            var user = outcome.processedClaims
            for name in ["iss", "iat", "exp", "vct", "cnf", "plain"] { user[name] = nil }
            // `nationalities` is a plain array of disclosable elements: with none disclosed it stays, empty.
            #expect(user["nationalities"] != nil)
            if user["nationalities"] == [] { user["nationalities"] = nil }
            return user
        }
        #expect(try await presented(["address.street_address"]) == ["address": ["street_address": "Heidestraße 17"]])
        #expect(try await presented(["address"]) == ["address": Self.claims["address"] ?? nil])
        #expect(try await presented(["address"], nested: false) == ["address": [:]])
        #expect(try await presented(["nationalities.1"]) == ["nationalities": ["FR"]])
        #expect(try await presented(["nationalities.*"]) == ["nationalities": ["DE", "FR"]])
        #expect(try await presented(["nationalities"]) == ["nationalities": ["DE", "FR"]])
        #expect(sdjwtError { _ = try SDJWTPresentation.present(sdJWT, disclosing: [try ClaimsPathPointer(parsing: "age_equal_or_over.18")]) }
            == .claimNotFound(try ClaimsPathPointer([.key("age_equal_or_over"), .index(18)])))
        #expect(try await presented(["age_equal_or_over.18", "given_name"]) == ["age_equal_or_over": ["18": true], "given_name": "Erika"])
        #expect(try await presented([]) == [:])
        let disclosures = try SDJWTPresentation.disclosures(of: sdJWT, disclosing: [try ClaimsPathPointer(parsing: "address.locality")])
        #expect(disclosures.map(\.claimName) == ["locality", "address"])
    }

    @Test("presentation refusals: unknown path, wrong holder key, no cnf")
    func presentationRefusals() throws {
        let sdJWT = try issue()
        let missing = try ClaimsPathPointer(parsing: "address.zip")
        #expect(sdjwtError { _ = try SDJWTPresentation.present(sdJWT, disclosing: [missing]) } == .claimNotFound(missing))
        let index = try ClaimsPathPointer(parsing: "nationalities.2")
        #expect(sdjwtError { _ = try SDJWTPresentation.present(sdJWT, disclosing: [index]) } == .claimNotFound(index))
        #expect(sdjwtError {
            _ = try SDJWTPresentation.present(
                sdJWT, disclosing: [], holderKey: Forge.otherKey, audience: "a", nonce: "n", clock: Forge.clock)
        } == .holderKeyMismatch)
        let unbound = try issuer().issue(claims: ["a": 1], disclosable: [])
        #expect(sdjwtError {
            _ = try SDJWTPresentation.present(
                unbound, disclosing: [], holderKey: Forge.holderKey, audience: "a", nonce: "n", clock: Forge.clock)
        } == .invalidConfirmationKey("the SD-JWT has no cnf.jwk"))
    }

    @Test("the KB-JWT: typ kb+jwt, iat from the clock, sd_hash over the presented text exactly")
    func keyBindingJWT() throws {
        let sdJWT = try issue()
        let text = try SDJWTPresentation.present(
            sdJWT, disclosing: [try ClaimsPathPointer(parsing: "given_name")], holderKey: Forge.holderKey,
            audience: Forge.audience, nonce: Forge.nonce, clock: Forge.clock)
        let parsed = try SDJWT(parsing: text)
        let kb = try #require(parsed.keyBindingJWT)
        #expect(kb.type == "kb+jwt")
        let claims = try kb.payloadJSON()
        #expect(claims["iat"] == .integer(Int64(Forge.now.timeIntervalSince1970)))
        #expect(claims["aud"] == .string(Forge.audience) && claims["nonce"] == .string(Forge.nonce))
        let input = String(text[..<(text.lastIndex(of: "~").map(text.index(after:)) ?? text.endIndex)])
        #expect(parsed.sdHashInput == input)
        #expect(claims["sd_hash"] == .string(SDHashAlgorithm.sha256.base64URLDigest(of: input)))
        try kb.verify(with: Forge.holderKey.verificationKey)
    }
}
