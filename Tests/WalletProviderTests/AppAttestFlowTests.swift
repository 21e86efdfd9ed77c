import Crypto
import DeviceAttestation
import Foundation
import OpenID4VP
import TesseraJOSE
import TesseraHTTP
import Testing
import WalletInstanceKit
import WalletProvider
import DeviceAttestationTesting

/// The iOS path end to end: App Attest attestation objects and assertions in Apple's format under a test App
/// Attestation root, through registration and the token endpoint, and the stored counter under concurrent replay.
@Suite(.serialized)
struct AppAttestFlowTests {
    @Test func iosActivationAndReissue() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let wallet = fixture.iosWallet()
        let activated = try await wallet.activate(provider: fixture.server.baseURL, session: account.session)
        #expect(activated.state == .operational)
        let tag = try #require(activated.hardwareKeyTag)
        #expect(Data(base64Encoded: tag)?.count == 32)  // the keyId
        let listed = try await fixture.request(.get, "/api/wallet-instances/\(InstanceID.of(tag))", session: account.session)
        #expect(listed.status == 200)
        #expect(listed.json?["platform"]?.stringValue == "ios")
        // A second attestation needs assertions with higher counters; the simulated device provides them.
        let reissued = try await wallet.reissue()
        #expect(reissued.walletAttestation != activated.walletAttestation)
    }

    @Test func iosRegistrationUnderTheAppleRootOnlyIsRefused() async throws {
        let fixture = try await ProviderFixture(trustTestRoot: false)
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let device = Device(fixture: fixture)
        let challenge = try await fixture.nonce()
        let answer = try await fixture.request(.post, "/wallet-instance", json: try device.registration(challenge), session: account.session)
        #expect(answer.status == 403)
        #expect(answer.error == "integrity_check_error")
        #expect(String(decoding: answer.body, as: UTF8.self).contains("untrusted_root"))
    }

    /// 100 concurrent token requests whose assertions all carry the same counter: at most one may succeed (the
    /// counter is advanced by one conditional UPDATE); here exactly one does, and the counter is then spent.
    @Test(arguments: ProviderDatabases.all)
    func replayedAssertionCounterWinsAtMostOnce(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = try await Device.registered(at: fixture)

        var forms: [String] = []
        for _ in 0..<100 { forms.append(try device.tokenRequest(challenge: try await fixture.nonce(), counter: 1)) }
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for form in forms {
                group.addTask {
                    let answer = try await fixture.request(.post, "/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
                    return (answer.status, answer.error)
                }
            }
            return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0.0 == 200 }.count == 1)
        #expect(statuses.filter { $0.0 != 200 }.allSatisfy { $0 == (400, "invalid_grant") })

        // The spent counter stays spent; the next one works.
        let again = try await fixture.request(
            .post, "/token", body: Data(try device.tokenRequest(challenge: try await fixture.nonce(), counter: 1).utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(again.status == 400)
        let next = try await fixture.request(
            .post, "/token", body: Data(try device.tokenRequest(challenge: try await fixture.nonce(), counter: 2).utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(next.status == 200)
        #expect(next.header("Content-Type") == "application/jwt")
    }

    /// The whole CBOR assertion in both fields (what Tessera's own wallet sent before it followed the production
    /// client) is no published encoding: refused, and the counter is not spent.
    @Test func theCBORAssertionInBothFieldsIsRefused() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let device = try await Device.registered(at: fixture)
        let old = try await fixture.request(
            .post, "/token", body: Data(try device.tokenRequest(challenge: try await fixture.nonce(), counter: 1, splitAssertion: false).utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(old.status == 400)
        let split = try await fixture.request(
            .post, "/token", body: Data(try device.tokenRequest(challenge: try await fixture.nonce(), counter: 1).utf8),
            contentType: "application/x-www-form-urlencoded")
        #expect(split.status == 200)
    }

    /// A device whose key and assertions the test controls directly (the counter included).
    struct Device {
        let fixture: ProviderFixture
        let key = P256.Signing.PrivateKey()
        var keyID: Data { Data(SHA256.hash(data: key.publicKey.x963Representation)) }

        func registration(_ challenge: String) throws -> JSONObject {
            let attested = try fixture.appleAuthority.attest(
                publicKey: key.publicKey, app: ProviderFixture.appleApp, environment: .production,
                clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), at: fixture.clock.now())
            return [
                "challenge": .string(challenge), "key_attestation": .string(attested.attestationObject.base64EncodedString()),
                "hardware_key_tag": .string(attested.keyID.base64EncodedString()),
            ]
        }

        /// A device registered under a new account of `fixture`.
        static func registered(at fixture: ProviderFixture) async throws -> Device {
            let account = try await fixture.account()
            let device = Device(fixture: fixture)
            let registered = try await fixture.request(
                .post, "/wallet-instance", json: try device.registration(try await fixture.nonce()), session: account.session)
            #expect(registered.status == 204)
            return device
        }

        /// A form body for `POST /token` whose App Attest assertion carries `counter`, sent in its two parts as the
        /// production client does (`splitAssertion`), or as its CBOR map in both fields (never published; refused).
        func tokenRequest(challenge: String, counter: UInt32, splitAssertion: Bool = true) throws -> String {
            let ephemeral = P256.Signing.PrivateKey()
            let jwk = JWK(publicKey: ephemeral.publicKey)
            let thumbprint = jwk.thumbprintBase64URL()
            let clientData = (["challenge": .string(challenge), "jwk_thumbprint": .string(thumbprint)] as JSONObject).serialized()
            let object = try AppAttestTestAuthority.assertion(
                key: key, app: ProviderFixture.appleApp, clientData: clientData, counter: counter)
            let parts = try AppAttestAssertionObject(object)
            let signature = (splitAssertion ? parts.signature : object).base64EncodedString()
            let integrity = (splitAssertion ? parts.authenticatorData : object).base64EncodedString()
            let now = Int64(fixture.clock.now().timeIntervalSince1970)
            let claims: JSONObject = [
                "iss": .string(thumbprint), "sub": .string(fixture.server.baseURL), "aud": .string(fixture.server.baseURL),
                "challenge": .string(challenge), "hardware_signature": .string(signature), "integrity_assertion": .string(integrity),
                "hardware_key_tag": .string(keyID.base64EncodedString()), "cnf": ["jwk": .object(jwk.jsonObject)],
                "iat": .integer(now), "exp": .integer(now + 300),
            ]
            let jwt = try CompactJWS.sign(header: ["typ": "war+jwt", "kid": .string(thumbprint)], claims: claims, key: .es256(ephemeral)).compact
            return FormURLEncoding.encode([
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", jwt),
            ])
        }
    }
}
