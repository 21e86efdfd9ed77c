import Foundation
import HolderKit
import MDoc
import OpenID4VP
import SDJWT
import TesseraCore
import TesseraJOSE
import Testing
import VerifierService
import TesseraHTTP

/// The verifier service end to end over real HTTP on loopback, with our wallet flow as the client, on SQLite
/// and (when the test script started one) PostgreSQL.
@Suite(.serialized) struct VerifierServiceTests {
    @Test(arguments: TestDatabases.all, ["direct_post.jwt", "direct_post"])
    func presentsAndRedeemsTheResultOnce(database: String, mode: String) async throws {
        let fixture = try await ServiceFixture(database: database)
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic", "response_mode": .string(mode)])
        #expect(try await fixture.status(id).body?["status"] == "pending")
        let outcome = try await RemotePresentation.present(
            requestURI: uri, credentials: try fixture.credentials(), consent: .all, walletConfig: fixture.walletConfig())
        #expect(outcome.verifier.isAuthenticated)
        guard case .success(let redirect?, _) = outcome.submission,
            let code = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "response_code" })?.value
        else { throw FixtureError("no redirect with a response code: \(String(describing: outcome.submission))") }
        // Status without the code: completed, no claims.
        let plain = try await fixture.status(id)
        #expect(plain.body?["status"] == "completed")
        #expect(plain.body?["verified_claims"] == nil)
        // With the code: the claims, once.
        let result = try await fixture.status(id, code: code)
        let pid = result.body?["verified_claims"]?["pid"]?.arrayValue?.first
        #expect(pid?["format"] == "dc+sd-jwt")
        #expect(pid?["claims"]?["given_name"] == "Erika")
        #expect(pid?["claims"]?["birthdate"] == "1964-08-12")
        #expect(pid?["claims"]?["age_equal_or_over"] == nil, "only what was asked for is disclosed")
        let again = try await fixture.status(id, code: code)
        #expect(again.status == 404)
        #expect(again.body?["error"] == "invalid_request")
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabases.all)
    func aResponseIsAcceptedOnlyOnceEvenConcurrently(database: String) async throws {
        let fixture = try await ServiceFixture(database: database)
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic"])
        let config = fixture.walletConfig()
        let request = try await resolveAuthorizationRequest(try await parseAuthorizationRequest(requestUri: uri, walletConfig: config), walletConfig: config)
        // The Request Object may be fetched more than once; each fetch carries the same nonce and state.
        let second = try await resolveAuthorizationRequest(try await parseAuthorizationRequest(requestUri: uri, walletConfig: config), walletConfig: config)
        #expect(second.nonce == request.nonce)
        #expect(second.state == request.state)
        let response = try await createAuthorizationResponse(
            request: request, selectedCredentials: try request.match(try fixture.credentials()).preferredSelection(), walletConfig: config)
        let body = try ResponseBody.encode(response, for: request, random: SystemRandomSource())
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask { try await fixture.call(.post, request.destination.uri, form: body).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.sorted() == [200, 400, 400, 400])
        #expect(try await fixture.status(id).body?["status"] == "completed")
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabases.all)
    func declinedPresentationFailsTheTransaction(database: String) async throws {
        let fixture = try await ServiceFixture(database: database)
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic"])
        let outcome = try await RemotePresentation.present(
            requestURI: uri, credentials: try fixture.credentials(), consent: .claims(["given_name"]), walletConfig: fixture.walletConfig())
        #expect(outcome.declined)
        let status = try await fixture.status(id).body
        #expect(status?["status"] == "failed")
        #expect(status?["error"] == "access_denied")
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabases.all)
    func transactionsExpire(database: String) async throws {
        let fixture = try await ServiceFixture(database: database, lifetime: 60)
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic"])
        let config = fixture.walletConfig()
        let request = try await resolveAuthorizationRequest(try await parseAuthorizationRequest(requestUri: uri, walletConfig: config), walletConfig: config)
        let response = try await createAuthorizationResponse(
            request: request, selectedCredentials: try request.match(try fixture.credentials()).preferredSelection(), walletConfig: config)
        fixture.clock.advance(by: 61)
        #expect(try await fixture.status(id).body?["status"] == "expired")
        let late = try await fixture.call(.post, request.destination.uri, form: try ResponseBody.encode(response, for: request, random: SystemRandomSource()))
        #expect(late.status == 400)
        #expect(try await fixture.call(.get, "/request/\(id)").status == 404)
        await fixture.shutdown()
    }

    /// Transactions expired for more than a day are deleted when a new one is created, at most once a minute per
    /// instance (not a DELETE per new transaction). SQLite only: a purge on the shared PostgreSQL test database
    /// would delete the rows of tests running beside it.
    @Test func oldTransactionsArePurgedAtMostOncePerMinute() async throws {
        let fixture = try await ServiceFixture(database: "sqlite", lifetime: 60)
        let (old, _) = try await fixture.createTransaction(["template": "pid_basic"])  // expires at start + 60
        fixture.clock.advance(by: 86_400 + 30)
        _ = try await fixture.createTransaction(["template": "pid_basic"])  // purges before start + 30
        #expect(try await fixture.status(old).body?["status"] == "expired", "expired less than a day ago: kept")
        fixture.clock.advance(by: 31)
        _ = try await fixture.createTransaction(["template": "pid_basic"])  // within the minute: no purge
        #expect(try await fixture.status(old).body?["status"] == "expired", "no second purge within the minute")
        fixture.clock.advance(by: 30)
        let (recent, _) = try await fixture.createTransaction(["template": "pid_basic"])  // purges before start + 91
        #expect(try await fixture.status(old).status == 404, "expired over a day ago: purged")
        #expect(try await fixture.status(recent).body?["status"] == "pending")
        await fixture.shutdown()
    }

    @Test(arguments: TestDatabases.all)
    func revokedCredentialIsRejected(database: String) async throws {
        let fixture = try await ServiceFixture(database: database, revoked: [5])
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic"])
        let outcome = try await RemotePresentation.present(
            requestURI: uri, credentials: try fixture.credentials(statusIndex: 5), consent: .all, walletConfig: fixture.walletConfig())
        guard case .error(let error, _)? = outcome.submission else { throw FixtureError("accepted: \(String(describing: outcome.submission))") }
        #expect(error == "invalid_request")
        let status = try await fixture.status(id).body
        #expect(status?["status"] == "failed")
        #expect(status?["error_description"]?.stringValue?.contains("status") == true)
        await fixture.shutdown()
    }

    @Test func badInputIsA4xxWithAnOAuthError() async throws {
        let fixture = try await ServiceFixture(database: "sqlite")
        let cases: [(HTTPRequest.Method, String, JSONObject?, String?, Int)] = [
            (.post, "/api/transactions", ["template": "nope"], nil, 400),
            (.post, "/api/transactions", ["template": "mdl", "dcql_query": ["credentials": []]], nil, 400),
            (.post, "/api/transactions", ["dcql_query": ["credentials": []]], nil, 400),
            (.post, "/api/transactions", ["template": "mdl", "response_mode": "fragment"], nil, 400),
            (.post, "/api/transactions", nil, "not json", 400),
            (.get, "/api/transactions/unknown", nil, nil, 404),
            (.get, "/api/transactions/AAAAAAAAAAAAAAAAAAAAAA", nil, nil, 404),
            (.get, "/request/AAAAAAAAAAAAAAAAAAAAAA", nil, nil, 404),
            (.post, "/response/AAAAAAAAAAAAAAAAAAAAAA", nil, "vp_token=%7B%7D&state=x", 404),
        ]
        for (method, path, json, form, expected) in cases {
            let (status, body) = try await fixture.call(method, path, json: json, form: form)
            #expect(status == expected, "\(method) \(path)")
            #expect(body?["error"] == "invalid_request", "\(method) \(path)")
        }
        // A response to a live transaction that is garbage, or has the wrong state, is refused and does not
        // consume the transaction.
        let (id, _) = try await fixture.createTransaction(["template": "pid_basic", "response_mode": "direct_post"])
        for form in ["garbage", "vp_token=%7B%22pid%22%3A%5B%22x%22%5D%7D&state=wrong", "response=a.b.c.d.e"] {
            #expect(try await fixture.call(.post, "/response/\(id)", form: form).status == 400)
        }
        #expect(try await fixture.status(id).body?["status"] == "pending")
        await fixture.shutdown()
    }
}

/// The form body a wallet posts for `response` (`direct_post` or `direct_post.jwt`), built the same way the
/// wallet library does, so a test can post it several times or after tampering.
enum ResponseBody {
    static func encode(_ response: AuthorizationResponse, for request: ResolvedAuthorizationRequest, random: any RandomSource) throws -> String {
        guard let encryption = request.destination.encryption else { return FormURLEncoding.encode(response.formParameters) }
        let jwe = try CompactJWE.encrypt(
            response.parameters.serialized(), to: encryption.key, enc: encryption.enc, kid: encryption.key.kid, random: random)
        return FormURLEncoding.encode([("response", jwe.compact)])
    }
}
