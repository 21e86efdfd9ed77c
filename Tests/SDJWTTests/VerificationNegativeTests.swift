import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

/// One test per rule of RFC 9901 §4 / §7.1 / §7.3 and SD-JWT VC: each breaks exactly that rule and expects exactly
/// its error (the outcome lists nothing else).
@Suite("Verification negative matrix")
struct VerificationNegativeTests {
    static let d1 = Forge.disclosure("given_name", "Erika")

    func expectOnly(
        _ text: String, _ expected: SDJWTError, _ policy: SDJWTVerificationPolicy = Forge.policy(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let outcome = await Forge.verify(text, policy)
        #expect(!outcome.isValid, sourceLocation: sourceLocation)
        #expect(outcome.errors == [expected], sourceLocation: sourceLocation)
    }

    @Test("baseline: the forged credential is valid, so each case below fails for its one reason")
    func baseline() async throws {
        let text = try Forge.sdJWT(Forge.payload(["_sd": [.string(Self.d1.digest())]]), [Self.d1])
        let outcome = await Forge.verify(text)
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.processedClaims["given_name"] == "Erika")
        let kb = text + (try Forge.kbJWT(over: text))
        let bound = await Forge.verify(kb, Forge.policy(requireKeyBinding: true))
        #expect(bound.isValid, "\(bound.errors)")
        #expect(bound.keyBinding?.holderKey.thumbprint() == Forge.holderKey.publicJWK.thumbprint())
    }

    // MARK: §4 serialization

    @Test("§4: longer than the limit") func tooLarge() async throws {
        var policy = Forge.policy()
        policy.limits.maxLength = 100
        let text = try Forge.sdJWT(Forge.payload())
        await expectOnly(text, .tooLarge(length: text.utf8.count, limit: 100), policy)
    }

    @Test("§4: more Disclosures than the limit") func tooManyDisclosures() async throws {
        var policy = Forge.policy()
        policy.limits.maxDisclosures = 1
        await expectOnly(try Forge.sdJWT(Forge.payload(), [Self.d1, Self.d1]), .tooManyDisclosures(count: 2, limit: 1), policy)
    }

    @Test("§4: no ~ at all, or an empty Disclosure") func malformedSerialization() async throws {
        let jwt = try Forge.jwt(Forge.payload()).compact
        await expectOnly(jwt, .malformedSerialization("no ~ after the Issuer-signed JWT"))
        await expectOnly(jwt + "~~", .malformedSerialization("empty Disclosure between ~~"))
    }

    @Test("§4.1: Issuer-signed JWT with alg none") func algNone() async throws {
        let header = Base64URL.encode(Data(#"{"alg":"none","typ":"dc+sd-jwt"}"#.utf8))
        let body = Base64URL.encode(Forge.payload().serialized())
        await expectOnly("\(header).\(body).~", .malformedIssuerSignedJWT(.algorithmNone))
    }

    @Test("§4.1: payload not a JSON object") func payloadNotObject() async throws {
        let jws = try CompactJWS.sign(header: ["typ": "dc+sd-jwt"], payload: Data("[1]".utf8), key: Forge.issuerKey)
        await expectOnly(jws.compact + "~", .malformedPayload(.payloadNotObject))
    }

    @Test("§4.2: Disclosure not base64url") func disclosureNotBase64URL() async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload()) + "WyJh+Il0~", .disclosureNotBase64URL)
    }

    @Test("§4.2: Disclosure not a JSON array", arguments: [#"{"a":1}"#, "not json", "\"s\"", #"["s","n""#, #"["s","n",1] 2"#])
    func disclosureNotArray(_ json: String) async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload()) + Base64URL.encode(Data(json.utf8)) + "~", .disclosureNotJSONArray)
    }

    @Test("§4.2: Disclosure with 0, 1, 4 or 6 elements", arguments: [
        (#"[]"#, 0), (#"["s"]"#, 1), (#"["s","n","v","x"]"#, 4), (#"["s","n","v",[1],{"a":2},6]"#, 6),
    ])
    func disclosureElementCount(_ json: String, _ count: Int) async throws {
        await expectOnly(
            try Forge.sdJWT(Forge.payload()) + Base64URL.encode(Data(json.utf8)) + "~", .disclosureWrongElementCount(count))
    }

    @Test("§4.2.1: salt not a string") func saltNotString() async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload()) + Base64URL.encode(Data(#"[1,"n","v"]"#.utf8)) + "~", .disclosureSaltNotString)
    }

    @Test("§4.2.1: claim name not a string") func nameNotString() async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload()) + Base64URL.encode(Data(#"["s",2,"v"]"#.utf8)) + "~", .disclosureClaimNameNotString)
    }

    // MARK: §7.1

    @Test("§7.1 step 2: signed by another key") func issuerSignature() async throws {
        let text = try Forge.sdJWT(Forge.payload(), key: Forge.otherKey)
        await expectOnly(text, .issuerSignatureInvalid(.invalidSignature))
        // Claims are handed out only from an authentic SD-JWT.
        #expect(await Forge.verify(text).processedClaims.isEmpty)
    }

    @Test("§4.1.1: unsupported _sd_alg", arguments: [(JSONValue.string("sha-1"), "sha-1"), (.integer(256), "256")])
    func unsupportedHash(_ alg: JSONValue, _ name: String) async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload(["_sd_alg": alg])), .unsupportedHashAlgorithm(name))
    }

    @Test("sha-384 and sha-512 are accepted", arguments: [SDHashAlgorithm.sha384, .sha512])
    func otherHashes(_ algorithm: SDHashAlgorithm) async throws {
        let text = try Forge.sdJWT(
            Forge.payload(["_sd": [.string(Self.d1.digest(algorithm))], "_sd_alg": .string(algorithm.rawValue)]), [Self.d1])
        let outcome = await Forge.verify(text)
        #expect(outcome.isValid && outcome.processedClaims["given_name"] == "Erika")
    }

    @Test("§4.2.4.1: _sd not an array of strings", arguments: [JSONValue.string("x"), .array([1])])
    func sdNotStrings(_ sd: JSONValue) async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload(["_sd": sd])), .sdNotArrayOfStrings)
    }

    @Test("§4.2.4.2: array element digest object with another key or a non-string digest",
          arguments: [JSONValue.object(["...": "abc", "x": 1]), .object(["...": 5])])
    func malformedArrayDigest(_ element: JSONValue) async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload(["list": .array([element])])), .malformedArrayElementDigest)
    }

    @Test("§4.2.4.2: a disclosed array element that is itself {\"...\": x} is refused, not left in the claims",
          arguments: [JSONValue.object(["...": []]), .object(["...": "abc"]), .object(["...": "abc", "x": 1])])
    func disclosedElementDigest(_ value: JSONValue) async throws {
        let element = Forge.disclosure(nil, value)
        let text = try Forge.sdJWT(
            Forge.payload(["list": [["...": .string(element.digest())], "plain"]]), [element])
        await expectOnly(text, .reservedClaimName("..."))
    }

    @Test("§7.1 step 4: the same digest twice (in one _sd, and across _sd and an array)")
    func duplicateDigest() async throws {
        let digest = JSONValue.string(Self.d1.digest())
        await expectOnly(try Forge.sdJWT(Forge.payload(["_sd": [digest, digest]]), [Self.d1]), .duplicateDigest(Self.d1.digest()))
        let element = Forge.disclosure(nil, "DE")
        let text = try Forge.sdJWT(
            Forge.payload(["nationalities": [["...": .string(element.digest())]], "x": ["_sd": [.string(element.digest())]]]),
            [element])
        await expectOnly(text, .duplicateDigest(element.digest()))
        // A digest with no Disclosure (a decoy) met twice is a duplicate too.
        let decoy = SDHashAlgorithm.sha256.base64URLDigest(of: "decoy")
        await expectOnly(
            try Forge.sdJWT(Forge.payload(["_sd": [.string(decoy)], "y": ["_sd": [.string(decoy)]]]), []), .duplicateDigest(decoy))
    }

    @Test("§7.1 step 5: a Disclosure referenced nowhere (also: the same Disclosure sent twice)")
    func unreferenced() async throws {
        await expectOnly(try Forge.sdJWT(Forge.payload(), [Self.d1]), .unreferencedDisclosure(Self.d1.digest()))
        await expectOnly(
            try Forge.sdJWT(Forge.payload(["_sd": [.string(Self.d1.digest())]]), [Self.d1, Self.d1]),
            .unreferencedDisclosure(Self.d1.digest()))
    }

    @Test("§7.1 step 3: claim name _sd or ...", arguments: ["_sd", "..."])
    func reservedName(_ name: String) async throws {
        let bad = Forge.disclosure(name, ["x"])
        await expectOnly(try Forge.sdJWT(Forge.payload(["_sd": [.string(bad.digest())]]), [bad]), .reservedClaimName(name))
    }

    @Test("§7.1 step 3: a 2-element Disclosure referenced from _sd") func twoElementInObject() async throws {
        let element = Forge.disclosure(nil, "DE")
        await expectOnly(
            try Forge.sdJWT(Forge.payload(["_sd": [.string(element.digest())]]), [element]),
            .arrayElementDisclosureInObject(element.digest()))
    }

    @Test("§7.1 step 3: a 3-element Disclosure referenced from an array") func threeElementInArray() async throws {
        await expectOnly(
            try Forge.sdJWT(Forge.payload(["list": [["...": .string(Self.d1.digest())]]]), [Self.d1]),
            .objectPropertyDisclosureInArray(Self.d1.digest()))
    }

    @Test("§7.1 step 3: the disclosed name already exists at that level") func collision() async throws {
        await expectOnly(
            try Forge.sdJWT(Forge.payload(["given_name": "Max", "_sd": [.string(Self.d1.digest())]]), [Self.d1]),
            .claimNameCollision("given_name"))
    }

    @Test("recursive Disclosures deeper than the limit") func tooDeep() async throws {
        var disclosures: [Disclosure] = []
        var value: JSONValue = "leaf"
        for level in 0..<5 {
            let disclosure = Forge.disclosure("l\(level)", value)
            disclosures.append(disclosure)
            value = ["_sd": [.string(disclosure.digest())]]
        }
        var policy = Forge.policy()
        policy.limits.maxDepth = 3
        guard case .object(let top) = value else { return }
        var payload = Forge.payload()
        payload["_sd"] = top["_sd"]
        await expectOnly(try Forge.sdJWT(payload, disclosures.reversed()), .nestingTooDeep(limit: 3), policy)
        policy.limits.maxDepth = 5
        #expect(await Forge.verify(try Forge.sdJWT(payload, disclosures), policy).isValid)
    }

    @Test("§7.1 step 6: exp passed, nbf and iat in the future; the skew is honoured")
    func validity() async throws {
        let t = Int64(Forge.now.timeIntervalSince1970)
        await expectOnly(try Forge.sdJWT(Forge.payload(["exp": .integer(t - 61)])), .expired)
        await expectOnly(try Forge.sdJWT(Forge.payload(["nbf": .integer(t + 61)])), .notYetValid)
        await expectOnly(try Forge.sdJWT(Forge.payload(["iat": .integer(t + 61)])), .issuedInFuture)
        await expectOnly(try Forge.sdJWT(Forge.payload(["exp": "tomorrow"])), .invalidTimeClaim("exp"))
        let within = try Forge.sdJWT(Forge.payload(["exp": .integer(t - 59), "nbf": .integer(t + 59), "iat": .integer(t + 59)]))
        #expect(await Forge.verify(within).isValid)
        var strict = Forge.policy()
        strict.clockSkew = 0
        await expectOnly(try Forge.sdJWT(Forge.payload(["exp": .integer(t - 1)])), .expired, strict)
    }

    // MARK: §7.3 Key Binding

    @Test("§7.3 step 2: required by policy, absent") func kbRequired() async throws {
        let text = try Forge.sdJWT(Forge.payload())
        await expectOnly(text, .keyBindingRequired, Forge.policy(requireKeyBinding: true))
        // Not required: absence is fine even though the credential has cnf (policy, not presence, decides).
        #expect(await Forge.verify(text, Forge.policy(requireKeyBinding: false)).isValid)
    }

    @Test("§7.3 step 4.1: no cnf, or cnf.jwk not a key") func noConfirmationKey() async throws {
        let text = try Forge.sdJWT(Forge.payload(cnf: false))
        await expectOnly(text + (try Forge.kbJWT(over: text)), .invalidConfirmationKey("no cnf.jwk"),
                         Forge.policy(requireKeyBinding: true))
        let bad = try Forge.sdJWT(Forge.payload(["cnf": ["jwk": ["kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"]]], cnf: false))
        let outcome = await Forge.verify(bad + (try Forge.kbJWT(over: bad)), Forge.policy(requireKeyBinding: true))
        #expect(outcome.errors.count == 1)
        if case .invalidConfirmationKey(let reason)? = outcome.errors.first {
            #expect(reason.hasPrefix("cnf.jwk"))
        } else {
            Issue.record("expected invalidConfirmationKey, got \(outcome.errors)")
        }
    }

    @Test("§4.3: KB-JWT not a JWS, or its payload not JSON") func malformedKB() async throws {
        let text = try Forge.sdJWT(Forge.payload())
        await expectOnly(text + "abc.def", .malformedKeyBindingJWT(.malformedCompact), Forge.policy(requireKeyBinding: true))
        let notJSON = try CompactJWS.sign(header: ["typ": "kb+jwt"], payload: Data("nope".utf8), key: Forge.holderKey).compact
        let outcome = await Forge.verify(text + notJSON, Forge.policy(requireKeyBinding: true))
        #expect(outcome.errors.count == 1)
        if case .malformedKeyBindingJWT(.invalidPayload)? = outcome.errors.first {} else {
            Issue.record("expected malformedKeyBindingJWT(invalidPayload), got \(outcome.errors)")
        }
    }

    @Test("§7.3 step 4.4: typ not kb+jwt", arguments: [JSONValue.string("JWT"), nil])
    func kbType(_ typ: JSONValue?) async throws {
        let text = try Forge.sdJWT(Forge.payload())
        var header = JSONObject()
        if let typ { header["typ"] = typ }
        await expectOnly(
            text + (try Forge.kbJWT(over: text, header: header)), .keyBindingTypeInvalid(typ?.stringValue),
            Forge.policy(requireKeyBinding: true))
    }

    @Test("§7.3 step 4.3: KB-JWT signed by a key other than cnf") func kbSignature() async throws {
        let text = try Forge.sdJWT(Forge.payload())
        let outcome = await Forge.verify(text + (try Forge.kbJWT(over: text, key: Forge.otherKey)), Forge.policy(requireKeyBinding: true))
        #expect(outcome.errors == [.keyBindingSignatureInvalid(.invalidSignature)])
        #expect(outcome.keyBinding == nil)
    }

    @Test("§4.3: KB-JWT claim missing or mistyped", arguments: ["iat", "aud", "nonce", "sd_hash"])
    func kbClaimMissing(_ name: String) async throws {
        let text = try Forge.sdJWT(Forge.payload())
        await expectOnly(
            text + (try Forge.kbJWT(over: text, overrides: [name: .some(nil)])), .keyBindingClaimMissing(name),
            Forge.policy(requireKeyBinding: true))
        await expectOnly(
            text + (try Forge.kbJWT(over: text, overrides: [name: .some(.array([]))])), .keyBindingClaimMissing(name),
            Forge.policy(requireKeyBinding: true))
    }

    @Test("§7.3 step 4.6: aud of another verifier") func kbAudience() async throws {
        let text = try Forge.sdJWT(Forge.payload())
        await expectOnly(
            text + (try Forge.kbJWT(over: text, overrides: ["aud": "https://evil.example"])), .keyBindingAudienceMismatch,
            Forge.policy(requireKeyBinding: true))
    }

    @Test("§7.3 step 4.6: another nonce (replay)") func kbNonce() async throws {
        let text = try Forge.sdJWT(Forge.payload())
        await expectOnly(
            text + (try Forge.kbJWT(over: text, overrides: ["nonce": "old"])), .keyBindingNonceMismatch,
            Forge.policy(requireKeyBinding: true))
    }

    @Test("§7.3 step 4.5: iat too old or in the future", arguments: [-301 - 61, 61])
    func kbIssuedAt(_ offset: Int) async throws {
        let text = try Forge.sdJWT(Forge.payload())
        let iat = JSONValue.integer(Int64(Forge.now.timeIntervalSince1970) + Int64(offset))
        await expectOnly(
            text + (try Forge.kbJWT(over: text, overrides: ["iat": iat])), .keyBindingIssuedAtOutsideWindow,
            Forge.policy(requireKeyBinding: true))
    }

    @Test("§7.3 step 4.7: sd_hash over something else (a Disclosure dropped after signing)")
    func sdHash() async throws {
        let full = try Forge.sdJWT(Forge.payload(["_sd": [.string(Self.d1.digest())]]), [Self.d1])
        let kb = try Forge.kbJWT(over: full)
        // Same Issuer-signed JWT, the Disclosure left out, the KB-JWT made for the full presentation.
        let jwt = String(full.prefix { $0 != "~" })
        await expectOnly(jwt + "~" + kb, .sdHashMismatch, Forge.policy(requireKeyBinding: true))
    }

    // MARK: SD-JWT VC

    @Test("VC §3.2.1: typ vc+sd-jwt only behind the option; others never", arguments: ["vc+sd-jwt", "example+sd-jwt", "JWT"])
    func vcType(_ typ: String) async throws {
        let text = try Forge.sdJWT(Forge.payload(), header: ["typ": .string(typ)])
        await expectOnly(text, .typeNotAccepted(typ))
        let legacy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: .key(Forge.issuerKey.verificationKey), expectedAudience: nil, expectedNonce: nil,
            requireKeyBinding: false, acceptLegacyType: true)
        let outcome = await Forge.verify(text, legacy)
        #expect(outcome.isValid == (typ == "vc+sd-jwt"), "\(outcome.errors)")
        await expectOnly(try Forge.sdJWT(Forge.payload(), header: [:]), .typeNotAccepted(nil))
    }

    @Test("VC §3.2.2.2: vct missing") func vct() async throws {
        var payload = Forge.payload()
        payload["vct"] = nil
        await expectOnly(try Forge.sdJWT(payload), .missingVCT)
        payload["vct"] = 7
        await expectOnly(try Forge.sdJWT(payload), .missingVCT)
    }

    @Test("VC §3.2.2.2: vct, cnf, status … disclosed selectively",
          arguments: ["iss", "nbf", "exp", "cnf", "vct", "vct#integrity", "status"])
    func nonDisclosable(_ name: String) async throws {
        var payload = Forge.payload()
        let value: JSONValue
        switch name {
        case "cnf": value = payload["cnf"] ?? .null
        case "exp": value = 1_900_000_000
        case "nbf": value = 1_700_000_000
        default: value = "v"
        }
        payload[name] = nil
        let disclosure = Forge.disclosure(name, value)
        payload["_sd"] = [.string(disclosure.digest())]
        let expected: [SDJWTError] = [.nonDisclosableClaim(name)]
        let outcome = await Forge.verify(try Forge.sdJWT(payload, [disclosure]))
        #expect(outcome.errors == expected)
        // A plain RFC 9901 SD-JWT may disclose any of them.
        var plain = Forge.policy(sdJWTVC: false)
        plain.acceptedTypes = nil
        #expect(await Forge.verify(try Forge.sdJWT(payload, [disclosure]), plain).isValid)
    }

    @Test("several problems are all listed") func allProblems() async throws {
        let t = Int64(Forge.now.timeIntervalSince1970)
        var payload = Forge.payload(["exp": .integer(t - 1000)])
        payload["vct"] = nil
        let text = try Forge.sdJWT(payload, [Self.d1], header: ["typ": "JWT"], key: Forge.otherKey)
        let outcome = await Forge.verify(text, Forge.policy(requireKeyBinding: true))
        #expect(outcome.errors == [
            .typeNotAccepted("JWT"), .issuerSignatureInvalid(.invalidSignature), .unreferencedDisclosure(Self.d1.digest()),
            .expired, .missingVCT, .keyBindingRequired,
        ])
    }
}
