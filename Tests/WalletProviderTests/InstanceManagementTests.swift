import Foundation
import ITWalletProtocol
import TesseraJOSE
import Testing

/// IT-Wallet 1.0+ Wallet Instance management: retrieval of all instances and of one, revocation by `PATCH`, `POST`
/// and the production `PUT …/status`, the production status resources, and the section's error table (401
/// `unauthorized`, 404 `not_found`, 403 `forbidden` / `invalid_request` for another account's instance, 400
/// `bad_request`, 422 `validation_error`).
@Suite(.serialized)
struct InstanceManagementTests {
    @Test(arguments: ProviderDatabases.all)
    func retrievalAndRevocationOfTheAccountsInstances(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let first = try await RegisteredInstance.register(fixture, session: session)
        fixture.clock.set(fixture.clock.now().addingTimeInterval(10))
        let second = try await RegisteredInstance.register(fixture, session: session)

        let list = try await fixture.request(.get, ITWalletEndpoint.registration, session: session)
        #expect(list.status == 200 && list.header("Cache-Control") == "no-store")
        let items = try #require((try JSONValue.parse(list.body)).arrayValue, "an array of every instance")
        #expect(items.compactMap { $0["id"]?.stringValue } == [first.id, second.id])
        #expect(items.allSatisfy { $0["status"]?.stringValue == "ACTIVE" && $0["iat"]?.int64Value != nil })

        // One instance, by id and by its hardware key tag (the production client's id).
        let one = try await fixture.request(.get, ITWalletEndpoint.instance(first.id), session: session)
        #expect(one.json?["id"]?.stringValue == first.id && one.json?["status"]?.stringValue == "ACTIVE")
        let byTag = try await fixture.request(.get, ITWalletEndpoint.instance(first.tag), session: session)
        #expect(byTag.json?["id"]?.stringValue == first.id)
        // "current": the newest valid one.
        let current = try await fixture.request(.get, "/wallet-instances/current/status", session: session)
        #expect(current.json == ["id": .string(second.id), "is_revoked": false])

        // PATCH (the text), POST (its alternative), PUT …/status (production): 204, and idempotent.
        #expect(try await fixture.request(.patch, ITWalletEndpoint.instance(second.id), json: ["status": "REVOKED"], session: session).status == 204)
        #expect(try await fixture.request(.post, ITWalletEndpoint.instance(second.id), json: ["status": "REVOKED"], session: session).status == 204)
        let status = try await fixture.request(.get, ITWalletEndpoint.instance(second.id) + "/status", session: session)
        #expect(status.json == ["id": .string(second.id), "is_revoked": true, "revocation_reason": "REVOKED_BY_USER"])
        let revoked = try await fixture.request(.get, ITWalletEndpoint.instance(second.id), session: session)
        #expect(revoked.json?["status"]?.stringValue == "REVOKED" && revoked.json?["revoked_at"] != nil)
        // "current" is now the older, still valid one; once every instance is revoked, the newest.
        #expect(try await fixture.request(.get, "/wallet-instances/current/status", session: session).json?["id"]?.stringValue == first.id)
        let put = try await fixture.request(.put, ITWalletEndpoint.instance(first.tag) + "/status", json: ["status": "REVOKED"], session: session)
        #expect(put.status == 204)
        let last = try await fixture.request(.get, "/wallet-instances/current/status", session: session)
        #expect(last.json?["id"]?.stringValue == second.id && last.json?["is_revoked"] == true)
        // The revoked instance gets no attestation.
        let refused = try await first.post(try await first.request10().assertion())
        #expect(refused.status == 403 && refused.error == "invalid_request")
    }

    @Test func theErrorTable() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let mine = try await fixture.account().session
        let theirs = try await fixture.account().session
        let instance = try await RegisteredInstance.register(fixture, session: mine)
        let path = ITWalletEndpoint.instance(instance.id)
        let revoke: JSONObject = ["status": "REVOKED"]
        let json = "application/json"
        let cases: [(String, ProviderFixture.Answer, Int, String)] = [
            ("list without a session", try await fixture.request(.get, ITWalletEndpoint.registration), 401, "unauthorized"),
            ("one with a bad token", try await fixture.request(.get, path, session: "not-a-session"), 401, "unauthorized"),
            ("status without a session", try await fixture.request(.get, path + "/status"), 401, "unauthorized"),
            ("current without a session", try await fixture.request(.get, "/wallet-instances/current/status"), 401, "unauthorized"),
            ("revoke without a session", try await fixture.request(.patch, path, json: revoke), 401, "unauthorized"),
            ("an unknown instance", try await fixture.request(.get, ITWalletEndpoint.instance("nobody"), session: mine), 404, "not_found"),
            ("revoke an unknown instance", try await fixture.request(.put, ITWalletEndpoint.instance("nobody") + "/status", json: revoke, session: mine), 404, "not_found"),
            ("another account's instance", try await fixture.request(.get, path, session: theirs), 403, "forbidden"),
            ("another account's instance status", try await fixture.request(.get, path + "/status", session: theirs), 403, "forbidden"),
            ("revoke another account's instance", try await fixture.request(.patch, path, json: revoke, session: theirs), 403, "invalid_request"),
            ("current of an account without instances", try await fixture.request(.get, "/wallet-instances/current/status", session: theirs), 404, "not_found"),
            ("revocation body missing status", try await fixture.request(.patch, path, json: [:], session: mine), 400, "bad_request"),
            ("revocation body with another member", try await fixture.request(.patch, path, json: ["status": "REVOKED", "reason": "x"], session: mine), 400, "bad_request"),
            ("revocation body not JSON", try await fixture.request(.patch, path, body: Data("status=REVOKED".utf8), contentType: "application/x-www-form-urlencoded", session: mine), 400, "bad_request"),
            ("revocation to ACTIVE", try await fixture.request(.patch, path, json: ["status": "ACTIVE"], session: mine), 422, "validation_error"),
            ("revocation status not a string", try await fixture.request(.put, path + "/status", body: Data(#"{"status":1}"#.utf8), contentType: json, session: mine), 422, "validation_error"),
        ]
        for (name, answer, status, error) in cases {
            #expect(answer.status == status && answer.error == error, "\(name): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.json?["error_description"]?.stringValue != nil, "\(name)")
        }
        // None of them revoked anything.
        #expect(try await fixture.request(.get, path, session: mine).json?["status"]?.stringValue == "ACTIVE")
    }

    @Test func thePortalAndTheAccountAPIRevokeTheSameWay() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let instance = try await RegisteredInstance.register(fixture, session: session)
        #expect(try await fixture.request(.post, "/api/wallet-instances/\(instance.id)/revoke", session: session).status == 204)
        let status = try await fixture.request(.get, ITWalletEndpoint.instance(instance.id) + "/status", session: session)
        #expect(status.json?["is_revoked"] == true && status.json?["revocation_reason"]?.stringValue == "REVOKED_BY_USER")
    }
}
