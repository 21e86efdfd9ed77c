import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

/// Serves canned Status List Tokens.
struct StaticStatusListFetcher: StatusListFetcher {
    let tokens: [String: String]
    struct NotFound: Error {}
    func statusListToken(at uri: URL) async throws -> String {
        guard let token = tokens[uri.absoluteString] else { throw NotFound() }
        return token
    }
}

@Suite("Token Status List (draft-ietf-oauth-status-list)")
struct StatusListTests {
    static let uri = "https://issuer.example.com/statuslists/1"

    @Test("the draft's 1-bit example: lst eNrbuRgAAhcBXQ is b9 a3, LSB first")
    func oneBitExample() throws {
        let list = try StatusList(json: ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])
        #expect(list.bytes == [0xB9, 0xA3])
        #expect(list.count == 16)
        let expected: [UInt8] = [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1]
        #expect(try (0..<16).map { try list.status(at: $0) } == expected)
        // Building the same statuses compresses to the same text (zlib, best compression).
        var built = try StatusList(bits: 1, count: 16)
        for (index, status) in expected.enumerated() { try built.setStatus(status, at: index) }
        #expect(built.bytes == [0xB9, 0xA3])
        #expect(try built.jsonObject() == ["bits": 1, "lst": "eNrbuRgAAhcBXQ"])
    }

    @Test("the draft's 2-bit example: lst eNo76fITAAPfAgc is c9 44 f9")
    func twoBitExample() throws {
        let list = try StatusList(json: ["bits": 2, "lst": "eNo76fITAAPfAgc"])
        #expect(list.bytes == [0xC9, 0x44, 0xF9])
        #expect(try (0..<12).map { try list.status(at: $0) } == [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3])
    }

    @Test("set and read back at every width", arguments: [1, 2, 4, 8])
    func widths(_ bits: Int) throws {
        var list = try StatusList(bits: bits, count: 1000)
        let max = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        for index in stride(from: 0, to: 1000, by: 7) { try list.setStatus(UInt8(index % (Int(max) + 1)), at: index) }
        let decoded = try StatusList(json: try list.jsonObject())
        #expect(decoded == list)
        for index in 0..<1000 {
            #expect(try decoded.status(at: index) == (index % 7 == 0 ? UInt8(index % (Int(max) + 1)) : 0))
        }
        #expect(sdjwtError { try list.setStatus(max &+ 1, at: 0) } == (bits == 8 ? nil : .statusListMalformed("status \(max &+ 1) does not fit in \(bits) bits")))
        #expect(sdjwtError { _ = try list.status(at: list.count) } == .statusIndexOutOfRange(index: list.count, count: list.count))
    }

    static let malformedCases: [(JSONObject, String)] = [
        (["bits": 3, "lst": "eNrbuRgAAhcBXQ"], "bits 3 is not 1, 2, 4 or 8"),
        (["bits": 1], "lst missing or not a string"),
        (["lst": "eNrbuRgAAhcBXQ"], "bits missing or not an integer"),
        (["bits": 1, "lst": "eNrbuRgAAhcBX+"], "lst is not base64url"),
        (["bits": 1, "lst": "AAAA"], "not zlib data (-3)"),
        (["bits": 1, "lst": "eNrbuRgAAhc"], "zlib data truncated"),
    ]

    @Test("malformed lists", arguments: malformedCases)
    func malformed(_ json: JSONObject, _ reason: String) {
        #expect(sdjwtError { _ = try StatusList(json: json) } == .statusListMalformed(reason))
    }

    @Test("zlib: trailing bytes after the stream, and a decompression bomb, are refused")
    func zlibLimits() throws {
        let good = try Base64URL.decode("eNrbuRgAAhcBXQ")
        #expect(sdjwtError { _ = try StatusList(json: ["bits": 1, "lst": .string(Base64URL.encode(good + [0]))]) }
            == .statusListMalformed("not zlib data (-3)"))
        let big = try StatusList(bits: 8, count: 1 << 20).jsonObject()
        #expect(sdjwtError { _ = try StatusList(json: big, maxBytes: 1 << 16) }
            == .statusListMalformed("decompressed list exceeds 65536 bytes"))
        #expect(try StatusList(json: big).count == 1 << 20)
    }

    func token(_ list: StatusList, subject: String = uri, typ: String? = nil, exp: Date? = nil, key: JWSSigningKey = Forge.issuerKey) throws -> String {
        let issued = try StatusListToken.issue(
            list, subject: subject, issuedAt: Forge.now.addingTimeInterval(-60),
            expiresAt: exp ?? Forge.now.addingTimeInterval(3600), timeToLive: 300, key: key)
        guard let typ else { return issued.jwt.compact }
        var header = issued.jwt.header
        header["typ"] = .string(typ)
        header["alg"] = nil
        return try CompactJWS.sign(header: header, payload: issued.jwt.payload, key: key).compact
    }

    func credential(index: Int, uri: String = uri) throws -> String {
        try Forge.sdJWT(Forge.payload(["status": StatusListReference(index: index, uri: uri).claim]))
    }

    func verify(_ text: String, tokens: [String: String], require: Bool = false) async -> SDJWTVerificationOutcome {
        await Forge.verify(text, Forge.policy(statusCheck: StatusListCheck(
            fetcher: StaticStatusListFetcher(tokens: tokens), requireStatus: require)))
    }

    @Test("a credential's status: VALID passes; INVALID, SUSPENDED and others are reported")
    func credentialStatus() async throws {
        var list = try StatusList(bits: 2, count: 64)
        try list.setStatus(StatusList.invalid, at: 3)
        try list.setStatus(StatusList.suspended, at: 4)
        try list.setStatus(3, at: 5)
        let tokens = [Self.uri: try token(list)]
        let valid = await verify(try credential(index: 2), tokens: tokens)
        #expect(valid.isValid, "\(valid.errors)")
        #expect(valid.status == StatusList.valid)
        for (index, status) in [(3, UInt8(1)), (4, 2), (5, 3)] {
            let outcome = await verify(try credential(index: index), tokens: tokens)
            #expect(outcome.errors == [.credentialStatusNotValid(status)])
            #expect(outcome.status == status)
        }
        #expect(await verify(try credential(index: 64), tokens: tokens).errors == [.statusIndexOutOfRange(index: 64, count: 64)])
    }

    @Test("Status List Token rules: typ, signature, sub, expiry; fetch failure; malformed status claim")
    func tokenRules() async throws {
        let list = try StatusList(bits: 1, count: 8)
        let text = try credential(index: 1)
        #expect(await verify(text, tokens: [Self.uri: try token(list, typ: "JWT")]).errors
            == [.statusListTokenInvalid("typ is not statuslist+jwt")])
        let forged = await verify(text, tokens: [Self.uri: try token(list, key: Forge.otherKey)])
        #expect(forged.errors.count == 1)
        if case .statusListTokenInvalid(let reason)? = forged.errors.first { #expect(reason.hasPrefix("signature")) } else {
            Issue.record("expected statusListTokenInvalid(signature…), got \(forged.errors)")
        }
        #expect(await verify(text, tokens: [Self.uri: try token(list, subject: "https://other.example/1")]).errors
            == [.statusListTokenInvalid("sub is not the referenced uri")])
        #expect(await verify(text, tokens: [Self.uri: try token(list, exp: Forge.now.addingTimeInterval(-3600))]).errors
            == [.statusListTokenInvalid("expired")])
        #expect(await verify(text, tokens: [:]).errors == [.statusListFetchFailed(Self.uri)])
        let bad = try Forge.sdJWT(Forge.payload(["status": ["status_list": ["idx": -1, "uri": .string(Self.uri)]]]))
        #expect(await verify(bad, tokens: [:]).errors == [.statusClaimMalformed("idx missing or not a non-negative integer")])
        let noStatus = try Forge.sdJWT(Forge.payload())
        #expect(await verify(noStatus, tokens: [:]).isValid)
        #expect(await verify(noStatus, tokens: [:], require: true).errors == [.statusClaimMalformed("no status claim")])
    }

    @Test("a Status List Token round trip through parsing")
    func tokenParse() throws {
        var list = try StatusList(bits: 8, count: 4)
        try list.setStatus(0xAB, at: 3)
        let token = try StatusListToken(parsing: try token(list))
        #expect(token.subject == Self.uri)
        #expect(token.statusList == list)
        #expect(token.jwt.type == "statuslist+jwt")
        #expect(try token.jwt.payloadJSON()["ttl"] == 300)
    }
}
