import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

/// Interop with PyPI sd-jwt 0.10.4 (module sd_jwt), both ways, through Fixtures/sdjwt_peer.py.
///
/// The Python peer runs from `TESSERA_PYTHON` or `<package root>/.build/pyenv/bin/python3` (set up by
/// scripts/test). If neither exists these tests fail; they are never skipped.
@Suite("sd-jwt (Python) interop")
struct SDJWTPythonInteropTests {
    struct PeerResult {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    func peer(_ arguments: [String], stdin: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> PeerResult? {
        guard let python = PythonPeer.interpreter else {
            Issue.record("\(PythonPeer.missingMessage)", sourceLocation: sourceLocation)
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [try Fixtures.url("sdjwt_peer.py").path] + arguments
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = PeerResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
        if result.status == 2 {
            Issue.record("sd-jwt peer unusable: \(result.stderr)", sourceLocation: sourceLocation)
            return nil
        }
        return result
    }

    /// sd-jwt's KB-JWT `iat` is the wall clock when it ran.
    var now: FixedClock { FixedClock(Date()) }

    @Test("sd-jwt issues (decoys, recursive, array elements) and presents with KB; we verify")
    func theirIssuanceOurVerification() async throws {
        let result = try #require(try peer(["issue", Forge.audience, Forge.nonce]))
        #expect(result.status == 0, "sd-jwt: \(result.stderr)")
        try #require(result.lines.count == 3, "unexpected peer output: \(result.stdout)")
        let key = try JWSVerificationKey(jwk: JWK(parsing: Data(result.lines[0].utf8)))
        var policy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: .key(key), expectedAudience: Forge.audience, expectedNonce: Forge.nonce)
        policy.clockSkew = 120
        let outcome = await SDJWTVerifier(policy: policy, clock: now).verify(result.lines[2])
        #expect(outcome.isValid, "\(outcome.errors)")
        var claims = outcome.processedClaims
        #expect(claims["cnf"]?["jwk"] != nil)
        claims["cnf"] = nil
        #expect(claims == [
            "iss": "https://issuer.example.com", "iat": 1_683_000_000, "vct": "urn:eudi:pid:1", "given_name": "Erika",
            "address": ["street_address": "Heidestraße 17", "locality": "Köln"], "nationalities": ["FR", "AT"],
            "age_equal_or_over": ["18": true],
        ])
        // The full issuance verifies too (all Disclosures, no KB-JWT), and a holder presentation by us from it.
        var noKB = policy
        noKB.requireKeyBinding = false
        #expect(await SDJWTVerifier(policy: noKB, clock: now).verify(result.lines[1]).isValid)
        // Tampering with their presentation is caught: one Disclosure dropped after the KB-JWT was made.
        let parts = result.lines[2].split(separator: "~", omittingEmptySubsequences: false)
        let dropped = ([parts[0]] + parts.dropFirst(2)).joined(separator: "~")
        // (If it was the address Disclosure, street_address's Disclosure is now unreferenced as well.)
        let errors = await SDJWTVerifier(policy: policy, clock: now).verify(dropped).errors
        #expect(errors.contains(.sdHashMismatch))
    }

    @Test("we issue and present with KB; sd-jwt verifies to the same claims")
    func ourPresentationTheirVerification() async throws {
        let issuer = try SDJWTIssuer(
            signingKey: Forge.issuerKey, clock: now, random: SystemRandomSource(), decoyDigests: 1...3)
        let sdJWT = try issuer.issueVC(
            vct: "urn:eudi:pid:1", claims: IssuanceTests.claims, disclosable: IssuanceTests.disclosable,
            holderKey: Forge.holderKey.publicJWK, issuer: "https://issuer.example.com", validity: 3600)
        let paths = try ["given_name", "address.locality", "nationalities.1", "age_equal_or_over.18"].map {
            try ClaimsPathPointer(parsing: $0).resolvingNumericKeys(in: .object(IssuanceTests.claims))
        }
        let text = try SDJWTPresentation.present(
            sdJWT, disclosing: paths, holderKey: Forge.holderKey, audience: Forge.audience, nonce: Forge.nonce, clock: now)
        let issuerJWK = Forge.issuerKey.publicJWK.jsonObject.description
        let result = try #require(try peer(["verify", issuerJWK, Forge.audience, Forge.nonce], stdin: text))
        #expect(result.status == 0, "sd-jwt: \(result.stderr)")
        let theirs = try JSONValue.parse(result.stdout)
        let ours = await SDJWTVerifier(
            policy: .sdJWTVC(issuerKeySource: .key(Forge.issuerKey.verificationKey), expectedAudience: Forge.audience,
                             expectedNonce: Forge.nonce), clock: now).verify(text)
        #expect(ours.isValid, "\(ours.errors)")
        #expect(theirs == .object(ours.processedClaims))
        #expect(theirs["given_name"] == "Erika")
        #expect(theirs["address"] == ["locality": "Köln"])
        #expect(theirs["nationalities"] == ["FR"])
        // sd-jwt refuses our presentation with the wrong nonce (its check, not ours).
        let wrong = try #require(try peer(["verify", issuerJWK, Forge.audience, "other"], stdin: text))
        #expect(wrong.status == 1 && wrong.stderr.contains("nonce"))
    }

    @Test("we issue; sd-jwt's holder presents with KB; we verify")
    func ourIssuanceTheirHolder() async throws {
        let issuer = try SDJWTIssuer(signingKey: Forge.issuerKey, clock: now, random: SystemRandomSource())
        let sdJWT = try issuer.issueVC(
            vct: "urn:eudi:pid:1", claims: IssuanceTests.claims, disclosable: IssuanceTests.disclosable,
            holderKey: Forge.holderKey.publicJWK, issuer: "https://issuer.example.com")
        guard case .es256(let holderPrivate) = Forge.holderKey else { return }
        let holderJWK = JWK(privateKey: holderPrivate).jsonObject.description
        let result = try #require(try peer(["present", Forge.audience, Forge.nonce, holderJWK], stdin: sdJWT.compact))
        #expect(result.status == 0, "sd-jwt: \(result.stderr)")
        var policy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: .key(Forge.issuerKey.verificationKey), expectedAudience: Forge.audience,
            expectedNonce: Forge.nonce)
        policy.clockSkew = 120
        let outcome = await SDJWTVerifier(policy: policy, clock: now).verify(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.processedClaims["given_name"] == "Erika")
        #expect(outcome.processedClaims["address"] == ["street_address": "Heidestraße 17"])
        #expect(outcome.processedClaims["family_name"] == nil)
    }
}
