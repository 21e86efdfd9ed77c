import Foundation
import HTTPTransport
import Synchronization
import TesseraHTTP
import TesseraTestSupport
import Testing
import TesseraJOSE
import WalletInstanceKit

/// Two `tessera provider serve` processes on one PostgreSQL database (a fresh one) behind a load balancer (issue 29),
/// wallets registering through it, one process killed with SIGKILL mid-way. Proves: every registration answered 204 is
/// there afterwards, and every nonce an instance handed out before it died is still good at the survivor (nothing
/// acknowledged lost); a nonce raced at both instances registers exactly once (single use across instances); the
/// survivor alone carries the load on, and only requests to the killed instance failed.
@Suite(.serialized)
struct ProviderScaleOutTests {
    /// Where the clients reach "the provider"; nothing listens there (`LoadBalancer`).
    static let front = LoadBalancer.nowhere

    @Test(.enabled(if: FreshPostgresDatabase.available, "needs TESSERA_TEST_POSTGRES_URL"))
    func twoInstancesShareTheLoadAndTheSurvivorLosesNothingAfterKill9() async throws {
        // A database of its own: the processes purge expired nonces by the real clock, which on the shared database
        // would take the nonces of suites whose clock is set in the past.
        let database = try FreshPostgresDatabase.create()
        defer { database.drop() }
        try await run(on: database.url)
    }

    private func run(on databaseURL: String) async throws {
        let started = ContinuousClock.now
        // The fixture's attestation authority attests the wallets' keys (its in-process server, on SQLite, plays no
        // part). The load's own HTTP client gives up connecting soon (`LoadBalancer`).
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let http = AsyncHTTPClientTransport(configuration: .init(connectTimeout: .seconds(2)))
        defer { Task { try? await http.shutdown() } }
        try fixture.authority.write(toDirectory: fixture.directory.appendingPathComponent("test-root"))
        let digest = ProviderFixture.application.signingCertificateDigests.map { $0.map { String(format: "%02x", $0) }.joined() }
        let arguments = [
            "--database", databaseURL,
            // One provider directory (federation key, signing chain) for both: one provider, two processes.
            "--directory", fixture.directory.appendingPathComponent("external").path,
            "--trust-test-attestation-root", fixture.directory.appendingPathComponent("test-root/root-certificate.pem").path,
            "--android-app", "\(ProviderFixture.application.packageName):\(digest.first ?? "")",
            "--password-cost", "m=64,t=1,p=1",
        ]
        // The first migrates the fresh database (`--auto-migrate`); the second starts once it listens.
        let first = try await ProviderProcess.start(arguments, home: fixture.directory)
        defer { first.stop() }
        let second = try await ProviderProcess.start(arguments, home: fixture.directory)
        defer { second.stop() }
        let (a, b) = (first.baseURL, second.baseURL)
        let balancer = LoadBalancer(front: Self.front, instances: [a, b], transport: http)
        let provider = fixture.through(balancer, front: Self.front)
        let (atA, atB) = (fixture.through(balancer.pinned(to: a), front: Self.front), fixture.through(balancer.pinned(to: b), front: Self.front))
        // The processes run on the real clock: the TOTP code and the attestations' validity follow it.
        fixture.clock.set(Date())
        // Signed up and logged in at one instance; the session is a row, so it holds at the other.
        let account = try await atA.account()

        let registered = Mutex<[String]>([])
        let load = ScaleOutLoad(workers: 6, isTransportFailure: { $0 is HTTPError }) { worker, round in
            // The nonce from one instance, the registration at the next (round robin).
            let challenge = try await provider.nonce()
            let registration = try await provider.registrationBody(challenge: challenge, wallet: "w\(worker)-\(round)")
            let answer = try await provider.request(.post, "/wallet-instance", json: registration.body, session: account.session)
            guard answer.status == 204 else { throw FixtureError("registration answered \(answer.status) \(answer.error ?? "")") }
            registered.withLock { $0.append(registration.tag) }
        }
        load.start()

        // Under load, both instances up: one nonce raced at both registers exactly once.
        for race in 0..<3 {
            let challenge = try await atA.nonce()
            var bodies: [(body: JSONObject, tag: String)] = []
            for index in 0..<4 { bodies.append(try await provider.registrationBody(challenge: challenge, wallet: "race\(race)-\(index)")) }
            let answers = try await withThrowingTaskGroup(of: (tag: String, answer: ProviderFixture.Answer).self) { group in
                for (index, body) in bodies.enumerated() {
                    let target = index % 2 == 0 ? atA : atB
                    group.addTask { (body.tag, try await target.request(.post, "/wallet-instance", json: body.body, session: account.session)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = answers.filter { $0.answer.status == 204 }
            #expect(winners.count == 1, "race \(race): \(answers.map(\.answer.status))")
            #expect(answers.filter { $0.answer.status != 204 }.allSatisfy { $0.answer.status == 403 && $0.answer.error == "invalid_request" })
            registered.withLock { $0 += winners.map(\.tag) }
        }
        // Nonces the instance about to die hands out: acknowledged, so the survivor must take them.
        var handedOutByA: [String] = []
        for _ in 0..<3 { handedOutByA.append(try await atA.nonce()) }

        let survivorTime = try await load.killMidway(first, instance: a, balancer: balancer, before: 40, after: 40)
        await load.stop()
        let tally = load.current
        #expect(tally.findings.isEmpty, "\(tally.findings)")
        #expect(balancer.transportFailures(at: b) == 0, "the survivor failed to answer")
        #expect(balancer.answers(from: a) > 0 && balancer.answers(from: b) > 0)

        // Every acknowledged registration is there, read through the survivor.
        let tags = registered.withLock { $0 }
        var missing: [String] = []
        for tag in tags where try await atB.request(.get, "/api/wallet-instances/\(InstanceID.of(tag))", session: account.session).status != 200 {
            missing.append(tag)
        }
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.count) of \(tags.count)")
        for (index, nonce) in handedOutByA.enumerated() {
            let body = try await atB.registrationBody(challenge: nonce, wallet: "handed-out-\(index)")
            let answer = try await atB.request(.post, "/wallet-instance", json: body.body, session: account.session)
            #expect(answer.status == 204, "a nonce the killed instance handed out: \(answer.status) \(answer.error ?? "")")
        }
        print(
            "provider scale-out: \(tally.succeeded) registrations (\(tally.succeededOnSurvivor) on the survivor alone in \(survivorTime)), "
                + "\(tally.transportFailures) cut off by the kill, \(tags.count) checked; \(ContinuousClock.now - started) in all")
    }
}
