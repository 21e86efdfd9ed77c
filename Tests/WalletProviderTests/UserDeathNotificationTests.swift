import Crypto
import Foundation
import TesseraJOSE
import TesseraTrustTesting
import Testing
import WalletInstanceKit
import WalletProvider
import X509

/// "Notify User Death" (`PATCH /wallet-instances`, the Wallet Provider's PDND e-service): a PDND voucher signed under
/// a test PDND root (`x5c`), the PID Provider's `Agid-JWT-Signature` by its registered key (`kid`), the body's
/// `Digest`; the named instances' users lose every instance and their accounts; each authentication rule broken
/// alone is refused.
@Suite(.serialized)
struct UserDeathNotificationTests {
    /// PDND (voucher issuer) under a test root, and the PID Provider's client key.
    struct PDND {
        let root: Certificate
        let voucherKey: P256.Signing.PrivateKey
        let voucherChain: [String]
        let clientKey = P256.Signing.PrivateKey()
        let client = "pid-provider-client-7a1c"
        var clientJWK: JWK { JWK(publicKey: clientKey.publicKey).with(kid: "pid-provider-key-1") }
        var trust: PDNDTrust { PDNDTrust(roots: [root], keys: [clientJWK]) }

        init() throws {
            var random = SystemRandomNumberGenerator()
            let (root, leaf) = try X5CTestPKI.issueChain(
                rootCommonName: "Test PDND Root", leafCommonName: "Test PDND Voucher Signer", now: Date(), random: &random)
            guard case .p256(let key) = leaf.privateKey else { throw FixtureError("not P-256") }
            self.root = root.certificate
            voucherKey = key
            voucherChain = [try leaf.derEncoded().base64EncodedString()]
        }
    }

    /// What a test may change in a call.
    struct Call {
        var body: Data = Data()
        var contentType = "application/merge-patch+json"
        var audience: String
        var voucherSigner: P256.Signing.PrivateKey?
        var voucherLifetime: Int64 = 600
        var voucherIssuedAt: Date?
        var signatureIssuer: String?
        var signatureKid = "pid-provider-key-1"
        var signatureSigner: P256.Signing.PrivateKey?
        var digest: String?
        var signedDigest: String?
        var jti = UUID().uuidString
        var omitSignature = false
    }

    static func send(_ fixture: ProviderFixture, _ pdnd: PDND, _ call: Call) async throws -> ProviderFixture.Answer {
        let now = Int64((call.voucherIssuedAt ?? fixture.clock.now()).timeIntervalSince1970)
        let voucher = try CompactJWS.sign(
            header: ["typ": "at+jwt", "x5c": .array(pdnd.voucherChain.map { .string($0) })],
            claims: [
                "iss": "interop.pagopa.it", "aud": .string(call.audience), "sub": .string(pdnd.client),
                "client_id": .string(pdnd.client), "purposeId": "purpose-1", "jti": .string(UUID().uuidString),
                "iat": .integer(now), "exp": .integer(now + call.voucherLifetime),
            ], key: .es256(call.voucherSigner ?? pdnd.voucherKey)).compact
        let digest = call.digest ?? "SHA-256=" + Data(SHA256.hash(data: call.body)).base64EncodedString()
        let signature = try CompactJWS.sign(
            header: ["typ": "JWT", "kid": .string(call.signatureKid)],
            claims: [
                "iss": .string(call.signatureIssuer ?? pdnd.client), "sub": .string(pdnd.client), "aud": .string(call.audience),
                "iat": .integer(now), "exp": .integer(now + 300), "jti": .string(call.jti),
                "signed_headers": [["digest": .string(call.signedDigest ?? digest)], ["content-type": .string(call.contentType)]],
            ], key: .es256(call.signatureSigner ?? pdnd.clientKey)).compact
        var headers = [("Content-Type", call.contentType), ("Authorization", "Bearer \(voucher)"), ("Digest", digest)]
        if !call.omitSignature { headers.append(("Agid-JWT-Signature", signature)) }
        let response = try await fixture.http.send(.init(
            method: .patch, url: try #require(URL(string: fixture.baseURL + "/wallet-instances")), headers: headers, body: call.body))
        return .init(status: response.status, headers: response.headers, body: response.body)
    }

    static func body(_ ids: [String]) -> Data { (["wallet_instance_ids": .array(ids.map { .string($0) })] as JSONObject).serialized() }

    @Test(arguments: ProviderDatabases.all)
    func theUsersInstancesAreRevokedAndTheAccountDeleted(database: String) async throws {
        let pdnd = try PDND()
        let fixture = try await ProviderFixture(database: database) { $0.pdndTrust = pdnd.trust }
        defer { Task { await fixture.shutdown() } }
        let deceased = try await fixture.account()
        let first = try await AttestationDevice.registered(at: fixture, .android, session: deceased.session)
        let second = try await AttestationDevice.registered(at: fixture, .ios, session: deceased.session)
        let revokedBefore = try await AttestationDevice.registered(at: fixture, .android, session: deceased.session)
        let other = try await fixture.account()
        let bystander = try await AttestationDevice.registered(at: fixture, .android, session: other.session)
        let revokedID = InstanceID.of(revokedBefore.hardwareKeyTag)
        #expect(try await fixture.request(.post, "/api/wallet-instances/\(revokedID)/revoke", session: deceased.session).status == 204)
        // The first named by its id, the revoked one by its (former) hardware key tag, one unknown.
        let ids = [InstanceID.of(first.hardwareKeyTag), revokedBefore.hardwareKeyTag, "unknown-instance"]
        let call = Call(body: Self.body(ids), audience: fixture.server.baseURL)
        let answer = try await Self.send(fixture, pdnd, call)
        #expect(answer.status == 207, "\(String(decoding: answer.body, as: UTF8.self))")
        let result = try #require(answer.json?["result"])
        #expect(result["revoked"] == [.string(ids[0])])
        #expect(result["already_revoked"] == [.string(ids[1])])
        #expect(result["not_found"] == ["unknown-instance"])
        #expect(answer.json?["result_description"]?.stringValue?.contains("1 other instance") == true)
        // The account is gone (its session with it); the other instance of the user is revoked too; the bystander
        // is untouched.
        #expect(try await fixture.request(.get, "/api/wallet-instances", session: deceased.session).status == 401)
        for device in [first, second] {
            let wia = try device.walletInstanceRequest(.v1_5, nonce: try await fixture.nonce())
            #expect(try await fixture.request(.post, "/wallet-instance-attestation", body: Data(wia.utf8), contentType: "text/plain").status == 404)
        }
        let wia = try bystander.walletInstanceRequest(.v1_5, nonce: try await fixture.nonce())
        #expect(try await fixture.request(.post, "/wallet-instance-attestation", body: Data(wia.utf8), contentType: "text/plain").status == 200)
        // A replay of the same call (same jti) is refused; a new call naming only gone instances is 404.
        #expect(try await Self.send(fixture, pdnd, call).status == 401)
        let again = try await Self.send(fixture, pdnd, Call(body: Self.body([ids[0]]), audience: fixture.server.baseURL))
        #expect(again.status == 404)
        #expect(again.header("Content-Type") == "application/problem+json")
        #expect(again.json?["status"]?.int64Value == 404 && again.json?["error"]?.stringValue == "not_found")
    }

    @Test func everyAuthenticationRule() async throws {
        let pdnd = try PDND()
        let fixture = try await ProviderFixture { $0.pdndTrust = pdnd.trust }
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let device = try await AttestationDevice.registered(at: fixture, .android, session: account.session)
        let base = Call(body: Self.body([InstanceID.of(device.hardwareKeyTag)]), audience: fixture.server.baseURL)
        func with(_ edit: (inout Call) -> Void) -> Call {
            var call = base
            call.jti = UUID().uuidString
            edit(&call)
            return call
        }
        let rows: [(String, Call, Int, String)] = [
            ("voucher signed outside the PDND root", with { $0.voucherSigner = P256.Signing.PrivateKey() }, 401, "invalid_token"),
            ("voucher for another audience", with { $0.audience = "https://other.example" }, 401, "invalid_token"),
            ("voucher expired", with { $0.voucherIssuedAt = fixture.clock.now().addingTimeInterval(-700) }, 401, "invalid_token"),
            ("voucher living two days", with { $0.voucherLifetime = 2 * 86_400 }, 401, "invalid_token"),
            ("signature by another key", with { $0.signatureSigner = P256.Signing.PrivateKey() }, 401, "invalid_token"),
            ("signature under an unknown kid", with { $0.signatureKid = "unknown" }, 401, "invalid_token"),
            ("signature by another client", with { $0.signatureIssuer = "another-client" }, 401, "invalid_token"),
            ("no Agid-JWT-Signature", with { $0.omitSignature = true }, 401, "invalid_token"),
            ("Digest of other bytes", with { $0.digest = "SHA-256=" + Data(SHA256.hash(data: Data("x".utf8))).base64EncodedString() }, 400, "invalid_request"),
            ("signature over another Digest", with { $0.signedDigest = "SHA-256=AAAA" }, 401, "invalid_token"),
            ("a body that is not the e-service's", with { $0.body = Data(#"{"ids":["x"]}"#.utf8) }, 400, "invalid_request"),
            ("text/plain", with { $0.contentType = "text/plain" }, 400, "invalid_request"),
        ]
        for (name, call, status, error) in rows {
            let answer = try await Self.send(fixture, pdnd, call)
            #expect(answer.status == status && answer.json?["error"]?.stringValue == error, "\(name): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.header("Content-Type") == "application/problem+json", "\(name)")
            if status == 401 { #expect(answer.header("WWW-Authenticate") == "Bearer error=\"invalid_token\"", "\(name)") }
        }
        // The instance survived every refused call; the IT-Wallet example's hex Digest and the endpoint URL as
        // audience are accepted.
        let hex = "SHA-256=" + Data(SHA256.hash(data: base.body)).map { String(format: "%02x", $0) }.joined()
        let accepted = try await Self.send(fixture, pdnd, with { $0.digest = hex; $0.audience = fixture.server.baseURL + "/wallet-instances" })
        #expect(accepted.status == 207, "\(String(decoding: accepted.body, as: UTF8.self))")

        // Without a configured trust, nothing is accepted.
        let closed = try await ProviderFixture()
        defer { Task { await closed.shutdown() } }
        #expect(try await Self.send(closed, pdnd, Call(body: base.body, audience: closed.server.baseURL)).status == 401)
    }
}
