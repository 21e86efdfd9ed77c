import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing
import TokenStatusList

/// The verifier's check of a credential's `status` (TSL §8.3) through `StatusListCheck`; the lists and tokens
/// themselves are tested in TokenStatusListTests.
@Suite("SD-JWT VC status through the Token Status List")
struct StatusListCheckTests {
    static let uri = "https://issuer.example.com/statuslists/1"

    func token(_ list: StatusList, subject: String = uri, typ: String? = nil, exp: Date? = nil, key: JWSSigningKey = Forge.issuerKey) throws -> String {
        let expiresAt = exp ?? Forge.now.addingTimeInterval(3600)
        let issued = try StatusListToken.issue(
            list, subject: subject, issuedAt: min(Forge.now, expiresAt).addingTimeInterval(-60),
            expiresAt: expiresAt, timeToLive: 300, key: key)
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
            fetcher: InMemoryStatusListFetcher(tokens: tokens), requireStatus: require)))
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
            == [.statusListTokenInvalid(StatusListError.wrongType("JWT").reason)])
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

    @Test("each StatusListError maps to the SDJWTError case of its part of the draft")
    func errorMapping() {
        #expect(SDJWTError(.indexOutOfRange(index: 9, count: 8)) == .statusIndexOutOfRange(index: 9, count: 8))
        #expect(SDJWTError(.malformedReference("no status_list object")) == .statusClaimMalformed("no status_list object"))
        #expect(SDJWTError(.expired) == .statusListTokenInvalid("expired"))
        #expect(SDJWTError(.unsupportedBits(3)) == .statusListMalformed("bits 3 is not 1, 2, 4 or 8"))
        #expect(SDJWTError(.listTooLarge(limit: 65536)) == .statusListMalformed("decompressed list exceeds 65536 bytes"))
    }
}
