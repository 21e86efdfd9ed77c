import Crypto
import Foundation
import ITWalletProtocol
import TesseraCore
import TesseraJOSE
import Testing

/// Every row of the IT-Wallet 1.0 Wallet Attestation error table ("Mobile Application Key Binding Error Response")
/// at `POST /wallet-attestations`, and the same table at the 0.9.3 `POST /wallet-attestation`. Each case changes one
/// part of a request that is otherwise accepted.
@Suite(.serialized)
struct WalletAttestation10ErrorTests {
    typealias Change = @Sendable (inout RegisteredInstance.Request, RegisteredInstance) async throws -> Void

    /// Name, the change, and the answer the table gives.
    static let requestCases: [(String, Change, Int, String)] = [
        ("a required claim missing (hardware_key_tag)", { r, _ in r.claims["hardware_key_tag"] = nil }, 400, "bad_request"),
        ("aud missing (required by wp-war+jwt)", { r, _ in r.claims["aud"] = nil }, 400, "bad_request"),
        ("the 0.9 claim challenge in a wp-war+jwt", { r, _ in r.claims["challenge"] = .string(r.nonce) }, 400, "bad_request"),
        ("typ war+jwt at the 1.0 endpoint", { r, _ in r.header["typ"] = "war+jwt" }, 400, "invalid_request"),
        ("typ attestations-request+jwt (1.3.x combined)", { r, _ in r.header["typ"] = "attestations-request+jwt" }, 400, "invalid_request"),
        ("exp not a NumericDate", { r, _ in r.claims["exp"] = "tomorrow" }, 422, "validation_error"),
        ("cnf.jwk not a JWK", { r, _ in r.claims["cnf"] = ["jwk": ["kty": "EC"]] }, 422, "validation_error"),
        ("kid not the thumbprint of cnf.jwk", { r, _ in r.header["kid"] = "another" }, 422, "validation_error"),
        ("hardware_signature not base64 DER", { r, _ in r.claims["hardware_signature"] = "%%%" }, 422, "validation_error"),
        ("aud names another provider", { r, _ in r.claims["aud"] = "https://another.example" }, 403, "invalid_request"),
        ("iss names another key", { r, _ in r.claims["iss"] = "c29tZW9uZSBlbHNl" }, 403, "invalid_request"),
        ("lifetime over an hour", { r, _ in r.claims["exp"] = .integer((r.claims["iat"]?.int64Value ?? 0) + 7200) }, 403, "invalid_request"),
        ("a nonce never issued", { r, i in try await r.reprove(nonce: "never-issued", i) }, 403, "invalid_request"),
        ("hardware_signature by another key", { r, _ in
            let der = try P256.Signing.PrivateKey().signature(for: Data("x".utf8)).derRepresentation
            r.claims["hardware_signature"] = .string(der.base64EncodedString())
        }, 403, "invalid_request"),
        ("integrity_assertion for other client_data", { r, i in
            let other = try await i.integrity.proofs(keyID: i.keyID, clientData: Data("other".utf8))
            r.claims["integrity_assertion"] = .string(other.integrityAssertion)
        }, 403, "invalid_request"),
        ("a hardware key tag nobody registered", { r, _ in r.claims["hardware_key_tag"] = "unknown-tag" }, 404, "not_found"),
    ]

    @Test func everyRowOfTheTable() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        var failures: [String] = []
        for (name, change, status, error) in Self.requestCases {
            var request = try await instance.request10()
            try await change(&request, instance)
            let answer = try await instance.post(try request.assertion())
            if answer.status != status || answer.error != error || answer.json?["error_description"]?.stringValue == nil
                || answer.header("Cache-Control") != "no-store" {
                failures.append("\(name): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
        // Signed by a key other than cnf.jwk: 403 invalid_request.
        let request = try await instance.request10()
        let otherSigner = try await instance.post(try request.assertion(signedBy: P256.Signing.PrivateKey()))
        if otherSigner.status != 403 || otherSigner.error != "invalid_request" { failures.append("signature: \(otherSigner.status)") }
        // The same nonce twice: the second is 403 invalid_request.
        let first = try await instance.request10()
        let accepted = try await instance.post(try first.assertion())
        let replay = try await instance.request10(nonce: first.nonce)
        let replayed = try await instance.post(try replay.assertion())
        if accepted.status != 200 || replayed.status != 403 || replayed.error != "invalid_request" {
            failures.append("replay: \(accepted.status), \(replayed.status) \(replayed.error ?? "")")
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test func theCombinedRequestIsRefusedByName() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        var request = try await instance.request10()
        request.header["typ"] = .string(ITWalletType.combinedAttestationsRequest)
        for path in [ITWalletEndpoint.attestation(.v1_0), ITWalletEndpoint.walletAttestationJSON] {
            let answer = try await instance.post(try request.assertion(), to: path)
            #expect(answer.status == 400 && answer.error == "invalid_request", "\(path)")
            let text = try #require(answer.json?["error_description"]?.stringValue)
            #expect(text.contains("attestations-request+jwt") && text.contains("wia-request+jwt"), "\(text)")
        }
    }

    @Test func theBodyRows() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let json = "application/json"
        let cases: [(String, Data, String?, Int, String)] = [
            ("not JSON", Data("{".utf8), json, 400, "bad_request"),
            ("a JSON array", Data("[]".utf8), json, 400, "bad_request"),
            ("text/plain", Data(#"{"assertion":"a.b.c"}"#.utf8), "text/plain", 400, "bad_request"),
            ("no assertion", Data("{}".utf8), json, 400, "bad_request"),
            ("an unknown member", Data(#"{"assertion":"a.b.c","grant_type":"x"}"#.utf8), json, 400, "bad_request"),
            ("assertion not a string", Data(#"{"assertion":5}"#.utf8), json, 422, "validation_error"),
            ("assertion not a JWS", Data(#"{"assertion":"hello"}"#.utf8), json, 422, "validation_error"),
            ("oversized", Data(repeating: 0x20, count: 400_000), json, 413, "invalid_request"),
        ]
        for path in [ITWalletEndpoint.attestation(.v1_0), ITWalletEndpoint.walletAttestationJSON] {
            for (name, body, type, status, error) in cases {
                let answer = try await fixture.request(.post, path, body: body, contentType: type)
                #expect(answer.status == status && answer.error == error, "\(path) \(name): \(answer.status) \(answer.error ?? "")")
            }
        }
    }

    @Test func aDeviceBelowTheMinimumIsAnIntegrityCheckError() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        var request = try await instance.request10()
        // A genuine integrity token for this request whose device verdict is missing.
        let clientData = ClientData(encoding: .challengeMember, nonce: request.nonce, thumbprint: request.thumbprint)
        let signer = try fixture.authority.integritySigner(at: fixture.clock.now())
        let claims: JSONObject = [
            "requestDetails": [
                "requestPackageName": .string(ProviderFixture.application.packageName),
                "requestHash": .string(clientData.hash.map { String(format: "%02x", $0) }.joined()),
                "timestampMillis": .string(String(Int64(fixture.clock.now().timeIntervalSince1970 * 1000))),
            ],
            "appIntegrity": ["appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": .string(ProviderFixture.application.packageName)],
            "deviceIntegrity": ["deviceRecognitionVerdict": []],
        ]
        let header: JSONObject = ["x5c": .array(signer.chain.map { .string($0.base64EncodedString()) })]
        request.claims["integrity_assertion"] = .string(try CompactJWS.sign(header: header, claims: claims, key: .es256(signer.key)).compact)
        let answer = try await instance.post(try request.assertion())
        #expect(answer.status == 403 && answer.error == "integrity_check_error", "\(String(decoding: answer.body, as: UTF8.self))")
    }

    @Test func aRevokedInstanceIsRefused() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let instance = try await RegisteredInstance.register(fixture, session: session)
        // Revoked from the account API (the management API's revocation is the same function: InstanceManagementTests).
        let revoke = try await fixture.request(.post, "/api/wallet-instances/\(instance.id)/revoke", session: session)
        #expect(revoke.status == 204)
        let answer = try await instance.post(try await instance.request10().assertion())
        #expect(answer.status == 403 && answer.error == "invalid_request")
        #expect(answer.json?["error_description"]?.stringValue?.contains("revoked") == true)
    }

    @Test func version093TakesTheWarJWTAsJSONAndAnswersTheJWT() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let instance = try await RegisteredInstance.register(fixture, session: try await fixture.account().session)
        let request = try await instance.request09()
        let answer = try await instance.post(try request.assertion(), to: ITWalletEndpoint.walletAttestationJSON)
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/jwt")
        let jws = try CompactJWS(parsing: String(decoding: answer.body, as: UTF8.self))
        #expect(jws.type == "wallet-attestation+jwt")
        #expect(jws.keyID == fixture.signingKeyID)
        #expect(jws.header["x5c"] == nil, "0.9 carries trust_chain only")
        let entityConfiguration = String(decoding: try await fixture.request(.get, ITWalletEndpoint.entityConfiguration).body, as: UTF8.self)
        #expect(jws.header["trust_chain"] == [.string(entityConfiguration)])
        #expect(try jws.payloadJSON()["sub"]?.stringValue == request.thumbprint)
        // The same attestation from the 0.9.0 /token grant (a form): the same header trust material.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try await instance.request09().assertion())
        let token = try await fixture.request(.post, "/token", body: Data(form.utf8), contentType: "application/x-www-form-urlencoded")
        let tokenJWS = try CompactJWS(parsing: String(decoding: token.body, as: UTF8.self))
        #expect(tokenJWS.type == "wallet-attestation+jwt" && tokenJWS.keyID == fixture.signingKeyID)
        #expect(tokenJWS.header["trust_chain"] == [.string(entityConfiguration)] && tokenJWS.header["x5c"] == nil)
        // The 1.0 request at the 0.9.3 path, and the 0.9 request at the 1.0 path: each endpoint takes its own typ.
        let wrongHere = try await instance.post(try await instance.request10().assertion(), to: ITWalletEndpoint.walletAttestationJSON)
        #expect(wrongHere.status == 400 && wrongHere.error == "invalid_request")
        let wrongThere = try await instance.post(try await instance.request09().assertion())
        #expect(wrongThere.status == 400 && wrongThere.error == "invalid_request")
        // Its errors are the IT-Wallet table's, not RFC 6749's.
        var unknown = try await instance.request09()
        unknown.claims["hardware_key_tag"] = "unknown-tag"
        let notFound = try await instance.post(try unknown.assertion(), to: ITWalletEndpoint.walletAttestationJSON)
        #expect(notFound.status == 404 && notFound.error == "not_found")
    }
}

extension RegisteredInstance.Request {
    /// The same request over another nonce: the proofs are made again for it.
    mutating func reprove(nonce: String, _ instance: RegisteredInstance) async throws {
        let clientData = ClientData(encoding: .challengeMember, nonce: nonce, thumbprint: thumbprint)
        let proofs = try await instance.integrity.proofs(keyID: instance.keyID, clientData: clientData.bytes)
        self.nonce = nonce
        claims["nonce"] = .string(nonce)
        claims["hardware_signature"] = .string(proofs.hardwareSignature)
        claims["integrity_assertion"] = .string(proofs.integrityAssertion)
    }
}
