import Foundation
import HolderKit
import OpenID4VP
import TesseraCore
import TesseraJOSE
import TesseraHTTP
import Testing
import VerifierService

/// One verdict per transaction (§8.2: one response per request), written by one conditional statement after
/// verification: responses that race, on one instance or on two instances sharing a PostgreSQL database, never
/// both count; and a transaction started on one instance is answered on another (the scale-out path).
@Suite(.serialized) struct SingleVerdictTests {
    static let postgresAvailable = TestDatabases.all.contains("postgres")

    @Test(.enabled(if: postgresAvailable, "needs TESSERA_TEST_POSTGRES_URL"))
    func aTransactionStartedOnOneInstanceIsAnsweredOnAnother() async throws {
        let fixture = try await ServiceFixture(database: "postgres")
        let other = try await fixture.secondInstance()
        #expect(other.baseURL == fixture.server.baseURL, "both instances are known by one base URL")
        let (id, uri) = try await fixture.createTransaction(["template": "pid_basic"])
        let prepared = try await PreparedResponse(fixture: fixture, requestURI: uri)
        // The load balancer sends the response to the other instance.
        let onOther = try prepared.responseURI(on: other)
        let answer = try await fixture.call(.post, onOther, form: prepared.body)
        #expect(answer.status == 200)
        let redirect = try #require(answer.body?["redirect_uri"]?.stringValue)
        #expect(redirect.hasPrefix(fixture.server.baseURL + "/"))
        let code = try #require(
            URLComponents(string: redirect)?.queryItems?.first(where: { $0.name == "response_code" })?.value)
        // The instance that started the transaction hands out the result, once.
        let result = try await fixture.status(id, code: code)
        #expect(result.body?["status"] == "completed")
        #expect(result.body?["verified_claims"]?["pid"]?.arrayValue?.first?["claims"]?["given_name"] == "Erika")
        let again = try await fixture.call(.get, "http://127.0.0.1:\(other.port)/api/transactions/\(id)?response_code=\(code)")
        #expect(again.status == 404, "the response code is single-use across instances")
        // A second response, to either instance, finds the transaction closed.
        #expect(try await fixture.call(.post, prepared.request.destination.uri, form: prepared.body).status == 400)
        #expect(try await fixture.call(.post, onOther, form: prepared.body).status == 400)
        await other.shutdown()
        await fixture.shutdown()
    }

    @Test(.enabled(if: postgresAvailable, "needs TESSERA_TEST_POSTGRES_URL"))
    func concurrentResponsesOnTwoInstancesAreAcceptedOnce() async throws {
        let fixture = try await ServiceFixture(database: "postgres")
        let other = try await fixture.secondInstance()
        for _ in 0..<3 {
            let (id, uri) = try await fixture.createTransaction(["template": "pid_basic"])
            let prepared = try await PreparedResponse(fixture: fixture, requestURI: uri)
            let targets = [prepared.request.destination.uri, try prepared.responseURI(on: other)]
            let answers = try await withThrowingTaskGroup(of: (Int, JSONObject?).self) { group in
                for index in 0..<4 {
                    group.addTask { try await fixture.call(.post, targets[index % 2], form: prepared.body) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.map(\.0).sorted() == [200, 400, 400, 400])
            for (status, body) in answers where status == 400 {
                #expect(body?["error"] == "invalid_request")
            }
            #expect(try await fixture.status(id).body?["status"] == "completed")
        }
        await other.shutdown()
        await fixture.shutdown()
    }

    /// A response that fails verification racing one that passes: whichever verdict is written first stands, the
    /// other response is refused, and the answers agree with the stored status.
    @Test(arguments: TestDatabases.all)
    func aFailingResponseRacingAValidOneLeavesOneVerdict(database: String) async throws {
        let fixture = try await ServiceFixture(database: database)
        for _ in 0..<4 {
            let (id, uri) = try await fixture.createTransaction(["template": "pid_basic", "response_mode": "direct_post"])
            let prepared = try await PreparedResponse(fixture: fixture, requestURI: uri)
            // The right state (so it is verified, not refused up front) with a presentation that cannot verify.
            let forged = FormURLEncoding.encode([
                ("vp_token", #"{"pid":["eyJhbGciOiJFUzI1NiJ9.e30.AAAA~"]}"#), ("state", prepared.request.state ?? ""),
            ])
            let target = prepared.request.destination.uri
            let answers = try await withThrowingTaskGroup(of: (valid: Bool, status: Int).self) { group in
                group.addTask { (true, try await fixture.call(.post, target, form: prepared.body).status) }
                for _ in 0..<3 {
                    group.addTask { (false, try await fixture.call(.post, target, form: forged).status) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let validAccepted = answers.contains { $0.valid && $0.status == 200 }
            #expect(answers.allSatisfy { $0.status == ($0.valid && validAccepted ? 200 : 400) })
            let stored = try await fixture.status(id).body?["status"]
            #expect(stored == (validAccepted ? "completed" : "failed"))
        }
        await fixture.shutdown()
    }
}
