import Crypto
import Foundation
import OpenID4VP
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing

/// §8.6 / RFC 9901 §7.3 on the verifier side: each broken Key Binding is refused with a 400 and fails the
/// transaction with the rule it broke (modelled on the OpenID conformance suite's verifier tests).
@Suite(.serialized) struct KeyBindingNegativeTests {
    enum Tamper: String, CaseIterable {
        case wrongNonce, wrongAudience, issuedInFuture, issuedLongAgo, wrongSDHash, wrongKey, noKeyBinding
    }

    @Test(arguments: Tamper.allCases)
    func brokenKeyBindingIsRejected(tamper: Tamper) async throws {
        let fixture = try await ServiceFixture(database: "sqlite")
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic", "response_mode": "direct_post"])
        let config = fixture.walletConfig()
        let request = try await resolveAuthorizationRequest(try await parseAuthorizationRequest(requestUri: uri, walletConfig: config), walletConfig: config)
        let sdJWT = try SDJWT(parsing: try fixture.pid())
        let paths = try ["given_name", "family_name", "birthdate"].map { try ClaimsPathPointer(keys: $0) }
        let presented = try SDJWTPresentation.presentation(sdJWT, disclosing: paths)
        let holder = JWSSigningKey.es256(fixture.holderKey)
        let now = fixture.clock.now()
        func bound(audience: String = request.clientId, nonce: String = request.nonce, at instant: Date = now) throws -> String {
            try SDJWTPresentation.keyBound(presented, holderKey: holder, audience: audience, nonce: nonce, clock: FixedClock(instant)).compact
        }
        let presentation: String
        let rule: String
        switch tamper {
        case .wrongNonce:
            (presentation, rule) = (try bound(nonce: "another-nonce"), "nonce")
        case .wrongAudience:
            (presentation, rule) = (try bound(audience: "x509_hash:someone-else"), "aud")
        case .issuedInFuture:
            (presentation, rule) = (try bound(at: now.addingTimeInterval(3600)), "iat")
        case .issuedLongAgo:
            (presentation, rule) = (try bound(at: now.addingTimeInterval(-3600)), "iat")
        case .wrongSDHash:
            // A KB-JWT made for a presentation with fewer Disclosures, attached to this one.
            let smaller = try SDJWTPresentation.presentation(sdJWT, disclosing: [paths[0]])
            let kb = try SDJWTPresentation.keyBound(smaller, holderKey: holder, audience: request.clientId, nonce: request.nonce, clock: FixedClock(now))
            (presentation, rule) = (presented.compact + (kb.keyBindingJWT?.compact ?? ""), "sd_hash")
        case .wrongKey:
            let other = JWSSigningKey.es256(P256.Signing.PrivateKey())
            let claims: JSONObject = [
                "iat": .integer(Int64(now.timeIntervalSince1970)), "aud": .string(request.clientId), "nonce": .string(request.nonce),
                "sd_hash": .string(try presented.hashAlgorithm().base64URLDigest(of: presented.sdHashInput)),
            ]
            let kb = try CompactJWS.sign(header: ["typ": "kb+jwt"], claims: claims, key: other)
            (presentation, rule) = (presented.compact + kb.compact, "signature")
        case .noKeyBinding:
            (presentation, rule) = (presented.compact, "Key Binding required")
        }
        let response = AuthorizationResponse.vpToken(try VPToken(entries: [("pid", [.string(presentation)])]), state: request.state)
        let answer = try await fixture.call(.post, request.destination.uri, form: try ResponseBody.encode(response, for: request, random: SystemRandomSource()))
        #expect(answer.status == 400)
        #expect(answer.body?["error"] == "invalid_request")
        let status = try await fixture.status(id).body
        #expect(status?["status"] == "failed")
        let description = status?["error_description"]?.stringValue ?? ""
        #expect(description.contains(rule), "\(tamper): \(description)")
        await fixture.shutdown()
    }
}
