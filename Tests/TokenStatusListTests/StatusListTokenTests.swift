import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import TokenStatusList
import X509

@Suite("Status List Token, JWT form (TSL §5.1)")
struct StatusListTokenTests {
    /// TSL §8.2's response example (examples/status_list_jwt_raw.md), signed by the draft's key "12".
    static let draftExample =
        "eyJhbGciOiJFUzI1NiIsImtpZCI6IjEyIiwidHlwIjoic3RhdHVzbGlzdCtqd3QifQ.eyJleHAiOjIyOTE3MjAxNzAsImlhdCI6MTY4NjkyMDE3MCwiaXNzIjoiaHR0cHM6Ly9leGFtcGxlLmNvbSIsInN0YXR1c19saXN0Ijp7ImJpdHMiOjEsImxzdCI6ImVOcmJ1UmdBQWhjQlhRIn0sInN1YiI6Imh0dHBzOi8vZXhhbXBsZS5jb20vc3RhdHVzbGlzdHMvMSIsInR0bCI6NDMyMDB9.2lKUUNG503R9htu4aHAYi7vjmr3sgApbfoDvPrl65N3URUO1EYqqQl45Jfzd-Av4QzlKa3oVALpLwOEUOq-U_g"

    @Test("the draft's example parses, verifies with its key, and validates at a pinned instant")
    func draftExample() throws {
        let token = try StatusListToken(parsing: Self.draftExample)
        #expect(token.subject == "https://example.com/statuslists/1")
        #expect(token.issuedAt == Date(timeIntervalSince1970: 1_686_920_170))
        #expect(token.expiresAt == Date(timeIntervalSince1970: 2_291_720_170))
        #expect(token.timeToLive == 43200)
        #expect(token.statusList.bytes == [0xB9, 0xA3])
        #expect(token.jwt.keyID == "12")
        try token.verifySignature(with: .es256(DraftKey.p256))
        let instant = Date(timeIntervalSince1970: 1_800_000_000)
        try token.validate(fetchedFrom: "https://example.com/statuslists/1", at: instant)
        #expect(statusListError { try token.validate(fetchedFrom: "https://example.com/statuslists/2", at: instant) } == .subjectMismatch)
        #expect(statusListError { try token.validate(fetchedFrom: token.subject, at: Date(timeIntervalSince1970: 2_291_720_171)) } == .expired)
        #expect(statusListError { try token.validate(fetchedFrom: token.subject, at: Date(timeIntervalSince1970: 1_686_920_000)) } == .issuedInFuture)
        // Skew tolerates a little on both sides.
        try token.validate(fetchedFrom: token.subject, at: Date(timeIntervalSince1970: 2_291_720_200), skew: 60)
        try token.validate(fetchedFrom: token.subject, at: Date(timeIntervalSince1970: 1_686_920_150), skew: 60)
    }

    @Test("issue → parse → verify with x5c against the root; header alg, typ, kid, x5c; claims in order")
    func roundTripWithX5C() async throws {
        let issuer = try TestIssuer()
        let list = try StatusList(bits: 1, count: 10_000, setting: [3, 4_999, 9_999])
        let issued = try StatusListToken.issue(
            list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, expiresAt: TestIssuer.now.addingTimeInterval(86_400),
            timeToLive: 3600, key: .es256(issuer.key), keyID: "status-1", x5c: issuer.chain)
        #expect(issued.jwt.header.keys == ["alg", "typ", "kid", "x5c"])
        #expect(issued.jwt.header["typ"] == "statuslist+jwt")
        #expect(try issued.jwt.payloadJSON().keys == ["sub", "iat", "exp", "ttl", "status_list"])
        let parsed = try StatusListToken(parsing: issued.jwt.compact)
        #expect(parsed.claims == issued.claims)
        #expect(parsed.statusList == list)
        let leaf = try await parsed.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now)
        #expect(try leaf == Certificate(derEncoded: Array(issuer.chain[0])))
        try parsed.verifySignature(with: .es256(issuer.key.publicKey))
        try parsed.validate(fetchedFrom: TestIssuer.uri, at: TestIssuer.now.addingTimeInterval(600))
        #expect(try parsed.statusList.status(at: 4_999) == StatusList.invalid)
        #expect(try parsed.statusList.status(at: 5_000) == StatusList.valid)

        // Another root, or a time outside the certificates: the chain does not validate.
        let stranger = try TestIssuer(seed: 99)
        guard case .certificateChainInvalid? = await asyncStatusListError({
            _ = try await parsed.verifySignature(trustAnchors: [stranger.root], at: TestIssuer.now)
        }) else { Issue.record("a foreign root was accepted"); return }
        guard case .certificateChainInvalid? = await asyncStatusListError({
            _ = try await parsed.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now.addingTimeInterval(400 * 86_400))
        }) else { Issue.record("an expired chain was accepted"); return }
        // No x5c at all.
        let bare = try StatusListToken.issue(list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, key: .es256(issuer.key))
        #expect(await asyncStatusListError { _ = try await bare.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now) }
            == .certificateChainInvalid(["no x5c header"]))
    }

    /// The compact text with one segment replaced.
    static func replacing(_ compact: String, segment: Int, with text: String) -> String {
        var parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[segment] = text
        return parts.joined(separator: ".")
    }

    @Test("tampering with the header, the payload or the signature breaks the signature")
    func tampering() async throws {
        let issuer = try TestIssuer()
        let list = try StatusList(bits: 1, count: 64, setting: [7])
        let compact = try StatusListToken.issue(
            list, subject: TestIssuer.uri, issuedAt: TestIssuer.now, key: .es256(issuer.key), x5c: issuer.chain).jwt.compact
        let parts = compact.split(separator: ".").map(String.init)
        var header = try JSONValue.parse(Base64URL.decode(parts[0])).objectValue ?? [:]
        header["kid"] = "other"
        var payload = try JSONValue.parse(Base64URL.decode(parts[1])).objectValue ?? [:]
        payload["status_list"] = .object(try StatusList(bits: 1, count: 64).jsonObject())  // index 7 un-revoked
        var signature = Array(try Base64URL.decode(parts[2]))
        signature[10] ^= 1
        for forged in [
            Self.replacing(compact, segment: 0, with: Base64URL.encode(header.serialized())),
            Self.replacing(compact, segment: 1, with: Base64URL.encode(payload.serialized())),
            Self.replacing(compact, segment: 2, with: Base64URL.encode(signature)),
        ] {
            let token = try StatusListToken(parsing: forged)
            guard case .signatureInvalid? = await asyncStatusListError({
                _ = try await token.verifySignature(trustAnchors: [issuer.root], at: TestIssuer.now)
            }) else { Issue.record("a tampered token verified"); continue }
            guard case .signatureInvalid? = statusListError({ try token.verifySignature(with: .es256(issuer.key.publicKey)) }) else {
                Issue.record("a tampered token verified with the key"); continue
            }
        }
    }

    /// A compact JWS over `claims` with `header`, signed by a throwaway key (the parse rules come before the signature).
    static func signed(_ claims: JSONObject, header: JSONObject = ["typ": "statuslist+jwt"]) throws -> String {
        let key = JWSSigningKey.es256(try P256.Signing.PrivateKey(rawRepresentation: SeededRandomSource(seed: 5).bytes(32)))
        return try CompactJWS.sign(header: header, claims: claims, key: key).compact
    }

    static let list: JSONValue = ["bits": 1, "lst": "eNrbuRgAAhcBXQ"]
    static let claims: JSONObject = ["sub": "https://example.com/statuslists/1", "iat": 1_686_920_170, "status_list": list]

    static func with(_ name: String, _ value: JSONValue?) -> JSONObject {
        var claims = Self.claims
        claims[name] = value
        return claims
    }

    static let badClaims: [(JSONObject, StatusListError)] = [
        (with("sub", nil), .missingClaim("sub")),
        (with("sub", 7), .invalidClaim(name: "sub", reason: "is not a string")),
        (with("iat", nil), .missingClaim("iat")),
        (with("iat", "yesterday"), .invalidClaim(name: "iat", reason: "is not a NumericDate")),
        (with("exp", "tomorrow"), .invalidClaim(name: "exp", reason: "is not a NumericDate")),
        (with("status_list", nil), .missingClaim("status_list")),
        (with("status_list", "eNrbuRgAAhcBXQ"), .invalidClaim(name: "status_list", reason: "is not an object")),
        (with("status_list", ["bits": 3, "lst": "eNrbuRgAAhcBXQ"]), .unsupportedBits(3)),
        (with("ttl", 0), .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        (with("ttl", -300), .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        (with("ttl", .number(1.5)), .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        (with("ttl", "300"), .invalidClaim(name: "ttl", reason: "is not a positive integer")),
        (with("ttl", .number(1e300)), .invalidClaim(name: "ttl", reason: "is not a positive integer")),
    ]

    @Test("claims: sub, iat, status_list required; exp a NumericDate; ttl a positive integer", arguments: badClaims)
    func badClaim(_ claims: JSONObject, _ error: StatusListError) throws {
        let compact = try Self.signed(claims)
        #expect(statusListError { _ = try StatusListToken(parsing: compact) } == error)
    }

    @Test("ttl written as a JSON number with a zero fraction is read; other claims (iss) are ignored")
    func lenientClaims() throws {
        var claims = Self.with("ttl", .number(43200))
        claims["iss"] = "https://example.com"
        #expect(try StatusListToken(parsing: Self.signed(claims)).timeToLive == 43200)
    }

    @Test("typ: statuslist+jwt, or its full media type in any case (RFC 7515 §4.1.9); nothing else")
    func types() throws {
        for typ in ["statuslist+jwt", "application/statuslist+jwt", "Application/StatusList+JWT"] {
            #expect(try StatusListToken(parsing: Self.signed(Self.claims, header: ["typ": .string(typ)])).subject == "https://example.com/statuslists/1")
        }
        #expect(statusListError { _ = try StatusListToken(parsing: Self.signed(Self.claims, header: ["typ": "JWT"])) } == .wrongType("JWT"))
        #expect(statusListError { _ = try StatusListToken(parsing: Self.signed(Self.claims, header: [:])) } == .wrongType(nil))
        #expect(statusListError { _ = try StatusListToken(parsing: Self.signed(Self.claims, header: ["typ": "statuslist+cwt"])) } == .wrongType("statuslist+cwt"))
    }

    @Test("size limits: an oversized token and a list that inflates past the cap are refused before any work")
    func limits() throws {
        let limits = StatusListLimits(maxListBytes: 1 << 16, maxTokenBytes: 4096)
        let big = Self.with("status_list", .object(try StatusList(bits: 8, count: 1 << 20).jsonObject()))
        #expect(statusListError { _ = try StatusListToken(parsing: Self.signed(big), limits: limits) } == .listTooLarge(limit: 1 << 16))
        var padded = Self.claims
        padded["padding"] = .string(String(repeating: "x", count: 5000))
        let long = try Self.signed(padded)
        #expect(statusListError { _ = try StatusListToken(parsing: long, limits: limits) } == .tokenTooLarge(length: long.utf8.count, limit: 4096))
        guard case .malformedToken? = statusListError({ _ = try StatusListToken(parsing: "not.a.jws") }) else {
            Issue.record("garbage parsed"); return
        }
        let unsigned = Base64URL.encode(Data(#"{"alg":"none","typ":"statuslist+jwt"}"#.utf8)) + "."
            + Base64URL.encode(Self.claims.serialized()) + "."
        guard case .malformedToken? = statusListError({ _ = try StatusListToken(parsing: unsigned) }) else {
            Issue.record("alg none parsed"); return
        }
    }

    @Test("issuing refuses a ttl that is not positive, an exp not after iat, an empty sub")
    func issuingRules() throws {
        let key = JWSSigningKey.es256(try TestIssuer().key)
        let list = try StatusList(bits: 1, count: 8)
        let now = TestIssuer.now
        #expect(statusListError { _ = try StatusListToken.issue(list, subject: "https://x.example/1", issuedAt: now, timeToLive: 0, key: key) }
            == .invalidClaim(name: "ttl", reason: "is not a positive integer"))
        #expect(statusListError { _ = try StatusListToken.issue(list, subject: "https://x.example/1", issuedAt: now, expiresAt: now, key: key) }
            == .invalidClaim(name: "exp", reason: "is not after iat"))
        #expect(statusListError { _ = try StatusListToken.issue(list, subject: "", issuedAt: now, key: key) }
            == .invalidClaim(name: "sub", reason: "is empty"))
        #expect(statusListError { _ = try StatusListToken.issue(list, subject: "https://x.example/1", issuedAt: Date(timeIntervalSince1970: .infinity), key: key) }
            == .invalidClaim(name: "iat", reason: "is not a finite date"))
        // NumericDates are whole seconds: a fractional iat is written rounded down, and the token says so.
        let token = try StatusListToken.issue(list, subject: "https://x.example/1", issuedAt: now.addingTimeInterval(0.75), key: key)
        #expect(token.issuedAt == now)
        #expect(try token.jwt.payloadJSON()["iat"] == .integer(Int64(now.timeIntervalSince1970)))
    }
}
