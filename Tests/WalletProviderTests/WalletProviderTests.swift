import Crypto
import Foundation
import TesseraJOSE
import TesseraTestSupport
import Testing
import WalletInstanceKit
import WalletProvider

/// The provider over real HTTP on loopback (SQLite, and PostgreSQL when the test script started one).
@Suite(.serialized)
struct WalletProviderTests {
    @Test func entityConfigurationIsASelfSignedEntityStatement() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let answer = try await fixture.request(.get, "/.well-known/openid-federation")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/entity-statement+jwt")
        let metadata = try ProviderMetadata(
            entityConfiguration: String(decoding: answer.body, as: UTF8.self), expectedEntityID: fixture.server.baseURL,
            at: fixture.clock.now())
        #expect(metadata.tokenEndpoint.absoluteString == fixture.server.baseURL + "/token")
        let jws = try CompactJWS(parsing: String(decoding: answer.body, as: UTF8.self))
        #expect(jws.keyID == fixture.server.keyID)
        let claims = try jws.payloadJSON()
        let provider = try #require(claims["metadata"]?["wallet_provider"]?.objectValue)
        for member in ["jwks", "token_endpoint", "nonce_endpoint", "aal_values_supported", "grant_types_supported",
                       "token_endpoint_auth_methods_supported", "token_endpoint_auth_signing_alg_values_supported"] {
            #expect(provider[member] != nil, "wallet_provider.\(member)")
        }
        let entity = try #require(claims["metadata"]?["federation_entity"]?.objectValue)
        for member in ["organization_name", "homepage_uri", "tos_uri", "policy_uri", "logo_uri"] { #expect(entity[member] != nil) }
        #expect(claims["authority_hints"]?.arrayValue != nil)
        // A wallet expecting another entity refuses it.
        #expect(throws: WalletInstanceError.self) {
            try ProviderMetadata(entityConfiguration: jws.compact, expectedEntityID: "https://other.example", at: fixture.clock.now())
        }
        // The key file is private to the provider.
        let attributes = try FileManager.default.attributesOfItem(atPath: fixture.directory.appendingPathComponent("provider-key.pem").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test(arguments: ProviderDatabases.all)
    func activationReissueRevocation(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let wallet = fixture.wallet()
        let activated = try await wallet.activate(provider: fixture.server.baseURL, session: account.session)
        #expect(activated.state == .operational)
        #expect(activated.history.map(\.event) == ["WI ACT"])
        let jwt = try #require(activated.walletAttestation)
        let jws = try CompactJWS(parsing: jwt)
        #expect(jws.type == "wallet-attestation+jwt")
        let claims = try jws.payloadJSON()
        #expect(claims["iss"]?.stringValue == fixture.server.baseURL)
        let cnf = try JWK(json: try #require(claims["cnf"]?["jwk"]?.objectValue))
        #expect(claims["sub"]?.stringValue == cnf.thumbprintBase64URL())
        let iat = try #require(claims["iat"]?.int64Value), exp = try #require(claims["exp"]?.int64Value)
        #expect(exp > iat && exp - iat <= 86_400)
        #expect(claims["presentation_definition_uri_supported"]?.boolValue == false)
        for member in ["aal", "authorization_endpoint", "response_types_supported", "response_modes_supported",
                       "vp_formats_supported", "request_object_signing_alg_values_supported"] {
            #expect(claims[member] != nil, "\(member)")
        }

        // Re-issuance before expiry.
        let again = try await wallet.reissue()
        #expect(again.walletAttestation != jwt)

        // The account sees its instance; revoking it is seen online by the wallet.
        let list = try await fixture.request(.get, "/api/wallet-instances", session: account.session)
        let instances = try #require(list.json?["wallet_instances"]?.arrayValue)
        #expect(instances.count == 1)
        let id = try #require(activated.instanceID)
        #expect(instances.first?["id"]?.stringValue == id)
        #expect(instances.first?["platform"]?.stringValue == "android")
        let revoke = try await fixture.request(.post, "/api/wallet-instances/\(id)/revoke", session: account.session)
        #expect(revoke.status == 204)
        await #expect(throws: WalletInstanceError.instanceRevoked) { try await wallet.reissue() }
        let after = try wallet.store.load()
        #expect(after.state == .installed)
        #expect(after.hardwareKeyID == nil)
        let status = try await fixture.request(.get, "/api/wallet-instances/\(id)", session: account.session)
        #expect(status.json?["status"]?.stringValue == "revoked")
        // Revoking twice finds no valid instance.
        #expect(try await fixture.request(.post, "/api/wallet-instances/\(id)/revoke", session: account.session).status == 404)
        // Activation works again from Installed with a new hardware key.
        let reactivated = try await wallet.activate(provider: fixture.server.baseURL, session: account.session)
        #expect(reactivated.state == .operational)
        #expect(reactivated.instanceID != id)
    }

    @Test func registrationErrorsFollowTheTable() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session

        // No session: RFC 6750 401.
        let nonce1 = try await fixture.nonce()
        let (body1, _) = try await fixture.registrationBody(challenge: nonce1)
        let noSession = try await fixture.request(.post, "/wallet-instance", json: body1)
        #expect(noSession.status == 401)
        #expect(noSession.error == "invalid_token")

        // Missing field / extra field / not JSON: 400 bad_request.
        var missing = body1
        missing["hardware_key_tag"] = nil
        for bad in [missing, body1.merging(["extra": "x"])] {
            let answer = try await fixture.request(.post, "/wallet-instance", json: bad, session: session)
            #expect(answer.status == 400)
            #expect(answer.error == "bad_request")
            #expect(answer.header("Cache-Control") == "no-store")
        }
        let notJSON = try await fixture.request(.post, "/wallet-instance", body: Data("{".utf8), contentType: "application/json", session: session)
        #expect(notJSON.status == 400)

        // Unknown challenge: 403 invalid_request.
        let (unknown, _) = try await fixture.registrationBody(challenge: "never-issued")
        let unknownAnswer = try await fixture.request(.post, "/wallet-instance", json: unknown, session: session)
        #expect(unknownAnswer.status == 403)
        #expect(unknownAnswer.error == "invalid_request")

        // A good registration, then the same challenge again (used) and the same tag again.
        let ok = try await fixture.request(.post, "/wallet-instance", json: body1, session: session)
        #expect(ok.status == 204)
        #expect(ok.header("Cache-Control") == "no-store")
        let reused = try await fixture.request(.post, "/wallet-instance", json: body1, session: session)
        #expect(reused.status == 403)
        #expect(reused.error == "invalid_request")
        var sameTag = body1
        sameTag["challenge"] = .string(try await fixture.nonce())
        let twice = try await fixture.request(.post, "/wallet-instance", json: sameTag, session: session)
        #expect(twice.status == 403 || twice.status == 422)

        // Undecodable key attestation: 422 validation_error.
        var garbage = try await fixture.registrationBody(challenge: try await fixture.nonce()).body
        garbage["key_attestation"] = .string(Data("not an attestation".utf8).base64EncodedString())
        let garbageAnswer = try await fixture.request(.post, "/wallet-instance", json: garbage, session: session)
        #expect(garbageAnswer.status == 422)
        #expect(garbageAnswer.error == "validation_error")

        // The attestation was made for another challenge: 403 integrity_check_error (challenge_mismatch).
        let (other, _) = try await fixture.registrationBody(challenge: "some other challenge")
        var mismatched = other
        mismatched["challenge"] = .string(try await fixture.nonce())
        let mismatch = try await fixture.request(.post, "/wallet-instance", json: mismatched, session: session)
        #expect(mismatch.status == 403)
        #expect(mismatch.error == "integrity_check_error")
        #expect(mismatch.json?["error_description"]?.stringValue?.contains("challenge_mismatch") == true)
    }

    @Test func anUntrustedRootIsAnIntegrityFailure() async throws {
        let fixture = try await ProviderFixture(trustTestRoot: false)
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let (body, _) = try await fixture.registrationBody(challenge: try await fixture.nonce())
        let answer = try await fixture.request(.post, "/wallet-instance", json: body, session: session)
        #expect(answer.status == 403)
        #expect(answer.error == "integrity_check_error")
        #expect(answer.json?["error_description"]?.stringValue?.contains("untrusted_root") == true)
    }

    @Test func aRealAppAttestObjectIsDetectedAndItsNonceChecked() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let samples = try JSONValue.parse(try Data(contentsOf: try #require(Bundle.module.url(forResource: "Fixtures/apple-app-attest", withExtension: "json"))))
        let sample = try #require(samples.arrayValue?.first { $0["attestation"] != nil })
        let object = try #require(sample["attestation"]?["attestation_object_b64"]?.stringValue)
        let keyID = try #require(sample["attestation"]?["key_id_b64"]?.stringValue)
        let body: JSONObject = ["challenge": .string(try await fixture.nonce()), "key_attestation": .string(object), "hardware_key_tag": .string(keyID)]
        let answer = try await fixture.request(.post, "/wallet-instance", json: body, session: session)
        // Our nonce is not the sample's challenge, and the sample's app is not configured.
        #expect(answer.status == 403)
        #expect(answer.error == "integrity_check_error")
        #expect(answer.json?["error_description"]?.stringValue?.contains("nonce_mismatch") == true)
    }

    @Test func oneNonceRacedByAHundredRegistrations() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let challenge = try await fixture.nonce()
        var bodies: [JSONObject] = []
        for i in 0..<100 { bodies.append(try await fixture.registrationBody(challenge: challenge, wallet: "race-\(i)").body) }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for body in bodies { group.addTask { try await fixture.request(.post, "/wallet-instance", json: body, session: session).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 204 }.count == 1)
        #expect(statuses.filter { $0 == 403 }.count == 99)
    }

    @Test func tokenErrorsAreRFC6749() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let form = "application/x-www-form-urlencoded"
        let wrongGrant = try await fixture.request(.post, "/token", body: Data("grant_type=password&assertion=x".utf8), contentType: form)
        #expect(wrongGrant.status == 400)
        #expect(wrongGrant.error == "unsupported_grant_type")
        let grant = "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
        let notJWS = try await fixture.request(.post, "/token", body: Data("grant_type=\(grant)&assertion=abc".utf8), contentType: form)
        #expect(notJWS.status == 400)
        #expect(notJWS.error == "invalid_request")
        let twice = try await fixture.request(.post, "/token", body: Data("grant_type=\(grant)&grant_type=\(grant)&assertion=a".utf8), contentType: form)
        #expect(twice.error == "invalid_request")
        let json = try await fixture.request(.post, "/token", json: ["grant_type": "x"])
        #expect(json.status == 400)
        #expect(json.error == "invalid_request")
    }

    @Test func vaporsOwnErrorsUseTheWireFormat() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let missing = try await fixture.request(.get, "/no/such/route")
        #expect(missing.status == 404)
        #expect(missing.error == "not_found")
        #expect(missing.json?["error_description"] != nil)
        let big = try await fixture.request(.post, "/api/accounts", body: Data(repeating: 0x41, count: 200_000), contentType: "application/json")
        #expect(big.status == 413)
        #expect(big.error == "invalid_request")
        let openapi = try await fixture.request(.get, "/openapi.json")
        #expect(openapi.json?["openapi"]?.stringValue == "3.0.3")
    }

    @Test func loginNeedsBothFactorsAndLocksAfterFiveFailures() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let (_, totp, email) = try await fixture.account()
        let password = "correct horse battery staple"
        // The code just used cannot be used again (same step).
        let replay = try await fixture.request(.post, "/api/login", json: ["email": .string(email), "password": .string(password), "totp": .string(totp.code(at: fixture.clock.now()))])
        #expect(replay.status == 401)
        for _ in 0..<4 {
            let wrong = try await fixture.request(.post, "/api/login", json: ["email": .string(email), "password": "wrong password!", "totp": "000000"])
            #expect(wrong.status == 401)
            #expect(wrong.error == "invalid_grant")
        }
        let later = fixture.clock.now().addingTimeInterval(60)
        fixture.clock.set(later)
        let locked = try await fixture.request(.post, "/api/login", json: ["email": .string(email), "password": .string(password), "totp": .string(totp.code(at: later))])
        #expect(locked.status == 429)
        fixture.clock.set(later.addingTimeInterval(16 * 60))
        let unlocked = try await fixture.request(.post, "/api/login", json: ["email": .string(email), "password": .string(password), "totp": .string(totp.code(at: fixture.clock.now()))])
        #expect(unlocked.status == 200)
        let unknown = try await fixture.request(.post, "/api/login", json: ["email": "nobody@example.org", "password": .string(password), "totp": "123456"])
        #expect(unknown.status == 401)
    }

    @Test func aNewInstancesPIDRevokesTheOlderOnesAndPurgeLeavesNoRow() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let first = fixture.wallet("first"), second = fixture.wallet("second")
        _ = try await first.activate(provider: fixture.server.baseURL, session: account.session)
        _ = try await second.activate(provider: fixture.server.baseURL, session: account.session)
        try await first.reportPID(active: true, session: account.session)
        try await second.reportPID(active: true, session: account.session)
        let firstStatus = try await first.refreshStatus(session: account.session)
        #expect(firstStatus["pid_status"]?.stringValue == "revoked")
        #expect(try await second.refreshStatus(session: account.session)["pid_status"]?.stringValue == "active")

        let purge = try await fixture.request(.post, "/api/account/purge", session: account.session)
        #expect(purge.status == 204)
        #expect(try await fixture.request(.get, "/api/wallet-instances", session: account.session).status == 401)
        // Read the database itself: no row of the account is left in any table.
        let path = try #require(fixture.databasePath)
        let python = try #require(PythonPeer.interpreter, Comment(rawValue: PythonPeer.missingMessage))
        let script = """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            print(sum(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ["wp_accounts", "wp_sessions", "wp_wallet_instances"]))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        process.waitUntilExit()
        let rows = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(rows == "0")
    }
}

extension JSONObject {
    func merging(_ other: JSONObject) -> JSONObject {
        var copy = self
        for (key, value) in other { copy[key] = value }
        return copy
    }
}
