import Foundation
import HTTPTransport
import Ledger
import LedgerProtocol
import ServiceSupport
import TesseraHTTP
import TesseraJOSE
import TesseraTestSupport
import Testing

@testable import VaultClient

/// Two `tessera ledger serve` processes on one (fresh) PostgreSQL database and one ledger directory (one master key)
/// behind a load balancer (issue 29): devices enroll and log in over and over through it, each login's action request
/// and execute landing on either instance, and one process is killed with SIGKILL mid-way. Proves: every device's state
/// file is the one its last acknowledged login saved, and it logs in with it at the survivor (nothing acknowledged
/// lost); a device nonce, an action token and a transaction key raced at both instances are each spent exactly once;
/// the survivor alone carries the load on, and only requests to the killed instance failed.
@Suite(.serialized)
struct LedgerScaleOutTests {
    /// Where the devices reach "the ledger"; nothing listens there (`LoadBalancer`).
    static let front = LoadBalancer.nowhere
    /// Small numbers: each instance allows 120 requests a minute from one address (`RateLimiter`), and every
    /// request here comes from 127.0.0.1.
    static let devices = 3

    @Test(.enabled(if: FreshPostgresDatabase.available, "needs TESSERA_TEST_POSTGRES_URL"))
    func twoInstancesShareTheLoadAndTheSurvivorLosesNothingAfterKill9() async throws {
        // A database of its own: the processes run on the real clock, and nothing of theirs mixes with other suites'.
        try await FreshPostgresDatabase.withScratch("tessera-ledger-scaleout") { try await deploy(on: $0, in: $1) }
    }

    private func deploy(on databaseURL: String, in directory: URL) async throws {
        let started = ContinuousClock.now
        let operatorDirectory = directory.appendingPathComponent("ledger")
        let arguments = [
            "ledger", "serve", "--port", "0", "--operator-dir", operatorDirectory.path, "--database", databaseURL, "--kdf-cost", "m=256,t=1,p=1",
        ]
        let environment = ["TESSERA_HOME": directory.path]
        // The first migrates the fresh database and creates the master key; the second starts once it listens, and
        // would refuse to start if anything were left to migrate (the PostgreSQL default).
        let first = try await ServiceProcess.start(arguments + ["--auto-migrate"], environment: environment)
        defer { first.stop() }
        let second = try await ServiceProcess.start(arguments, environment: environment)
        defer { second.stop() }

        // An HTTP client must be shut down before it is released, also when the test throws half-way.
        let http = AsyncHTTPClientTransport(configuration: .init(connectTimeout: .seconds(2)))
        do {
            let balancer = LoadBalancer(front: Self.front, instances: [first.baseURL, second.baseURL], transport: http)
            let configuration = LedgerConfiguration(database: try ServiceDatabase(url: databaseURL), directory: operatorDirectory)
            try await run(first: first, second: second, balancer: balancer, configuration: configuration, directory: directory)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
        print("ledger scale-out: \(ContinuousClock.now - started) in all")
    }

    private func run(
        first: ServiceProcess, second: ServiceProcess, balancer: LoadBalancer, configuration: LedgerConfiguration, directory: URL
    ) async throws {
        let (a, b) = (first.baseURL, second.baseURL)
        // Invitations straight into the database (`tessera ledger invite`); each enrollment's three steps go round robin.
        func enrolled(_ name: String) async throws -> VaultClient {
            let client = VaultClient(store: VaultStateStore(directory: directory.appendingPathComponent("device-\(name)")), http: balancer)
            let invitation = try await LedgerServer.invite(configuration)
            _ = try await client.enroll(
                ledger: Self.front, invitation: invitation, password: LedgerFixture.password, deviceID: "device-\(name)", deviceType: "linux")
            return client
        }
        var clients: [VaultClient] = []
        for index in 0..<Self.devices { clients.append(try await enrolled("\(index)")) }
        let racer = try await enrolled("racer")

        let log = LoginLog(states: try clients.map { try $0.store.load() })
        let devices = clients
        let load = ScaleOutLoad(workers: Self.devices, isTransportFailure: Self.isTransportFailure) { worker, _ in
            _ = try await devices[worker].authenticate(password: LedgerFixture.password)
            log.acknowledged(worker, state: try? devices[worker].store.load())
        }
        load.start()
        // Under load, both instances up: each single-use value raced at both.
        let races = Races(racer: racer, balancer: balancer, instances: (a, b))
        for _ in 0..<2 {
            try await races.deviceNonceAndActionToken()
            try await races.transactionKey()
        }
        let survivorTime = try await load.killMidway(first, instance: a, balancer: balancer, before: 10, after: 10)
        await load.stop()
        let tally = load.current
        #expect(tally.findings.isEmpty, "\(tally.findings)")
        #expect(balancer.transportFailures(at: b) == 0, "the survivor failed to answer")
        #expect(balancer.answers(from: a) > 0 && balancer.answers(from: b) > 0)
        #expect(log.summary.unreadable == 0, "a saved state could not be read back")

        // Each device holds what its last acknowledged login saved, and logs in with it at the survivor (the
        // balancer has only that one left): one version further, or two when the kill or the end of the load cut
        // off the answer to a login the ledger had committed.
        for (index, client) in clients.enumerated() {
            let saved = try client.store.load()
            #expect(saved == log.lastAcknowledged(index), "device \(index): the state file is not the last acknowledged one")
            do {
                let login = try await client.authenticate(password: LedgerFixture.password)
                #expect((1...2).contains(login.cekVersion - saved.blob.cekVersion))
            } catch {
                Issue.record("device \(index) (cek_version \(saved.blob.cekVersion)) cannot log in at the survivor: \(error)")
            }
        }
        // The racer's state, rotated by the races' winners, is the ledger's.
        _ = try await racer.authenticate(password: LedgerFixture.password)
        print(
            "ledger scale-out: \(tally.succeeded) logins (\(tally.succeededOnSurvivor) on the survivor alone in \(survivorTime)), "
                + "\(tally.transportFailures) cut off by the kill")
    }

    /// The ledger could not be reached (`VaultClient` reports every transport failure so).
    static func isTransportFailure(_ error: any Error) -> Bool {
        if case VaultError.ledger(status: 0, error: "unreachable", _) = error { return true }
        return false
    }
}

/// One device's single-use values sent to both instances at once.
private struct Races {
    let racer: VaultClient
    let balancer: LoadBalancer
    let instances: (String, String)

    /// One signed action request (one device nonce) at both instances: one action token. That token with one
    /// execute body, twice at each instance: one login.
    func deviceNonceAndActionToken() async throws {
        let state = try racer.store.load()
        let signed = try LedgerFixture.signedActionRequest(state)
        let requested = try await race([instances.0, instances.1]) { instance in
            try await post("/api/v1/action/request", signed.body, headers: signed.headers, to: instance)
        }
        #expect(requested.map(\.status).sorted() == [200, 409], "one device nonce at both instances: \(requested.map(\.status))")
        #expect(requested.contains { $0.status == 409 && $0.error == "replayed_nonce" })
        let action = try #require(requested.first { $0.status == 200 }?.json)
        let token = try #require(action["action_token"]?.stringValue)
        let body = try executeBody(state, action)
        let executed = try await race([instances.0, instances.1, instances.0, instances.1]) { instance in
            try await post("/api/v1/auth/execute", body, headers: [("Authorization", "Bearer \(token)")], to: instance)
        }
        #expect(executed.map(\.status).sorted() == [200, 401, 401, 401], "one action token at both instances: \(executed.map(\.status))")
        #expect(executed.filter { $0.status != 200 }.allSatisfy { $0.error == "invalid_token" })
        try keep(executed, state)
    }

    /// Two action tokens, one from each instance, are bound to the same transaction key (the first unused one);
    /// their executes raced at both instances: the key is spent once.
    func transactionKey() async throws {
        let state = try racer.store.load()
        var actions: [JSONObject] = []
        for instance in [instances.0, instances.1] {
            let signed = try LedgerFixture.signedActionRequest(state)
            let answer = try await post("/api/v1/action/request", signed.body, headers: signed.headers, to: instance)
            actions.append(try #require(answer.json, "action/request at \(instance): \(answer.status)"))
        }
        let keys = Set(actions.map { $0["use_key_id"]?.stringValue ?? "" })
        try #require(keys.count == 1, "the two action tokens name different keys: \(keys)")
        let requests = try actions.map { action in
            (token: action["action_token"]?.stringValue ?? "", body: try executeBody(state, action))
        }
        let executed = try await race([0, 1]) { index in
            try await post(
                "/api/v1/auth/execute", requests[index].body, headers: [("Authorization", "Bearer \(requests[index].token)")],
                to: index == 0 ? instances.0 : instances.1)
        }
        #expect(executed.map(\.status).sorted() == [200, 409], "one transaction key at both instances: \(executed.map(\.status))")
        #expect(executed.contains { $0.status == 409 && $0.error == "key_used" })
        try keep(executed, state)
    }

    private func executeBody(_ state: VaultState, _ action: JSONObject) throws -> Data {
        try LedgerFixture.executeBody(
            state, jti: action["jti"]?.stringValue ?? "", keyID: action["use_key_id"]?.stringValue ?? "",
            kdf: try KDFParameters(json: action["kdf"]?.objectValue))
    }

    /// The winner's credential package becomes the racer's state, as its app would save it.
    private func keep(_ answers: [LedgerFixture.Answer], _ state: VaultState) throws {
        let package = try #require(answers.first { $0.status == 200 }?.json?["credential_package"]?.objectValue)
        try racer.store.save(try VaultClient.state(
            from: package, ledger: state.ledger, deviceID: state.deviceID, deviceKey: state.devicePrivateKey,
            expectedUser: state.userGUID, nats: state.nats, vaultIdentityPublicKey: state.vaultIdentityPublicKey))
    }

    private func race<T: Sendable>(_ targets: [T], _ send: @escaping @Sendable (T) async throws -> LedgerFixture.Answer) async throws
        -> [LedgerFixture.Answer]
    {
        try await withThrowingTaskGroup(of: LedgerFixture.Answer.self) { group in
            for target in targets { group.addTask { try await send(target) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    private func post(_ path: String, _ body: Data, headers: [(name: String, value: String)], to instance: String) async throws
        -> LedgerFixture.Answer
    {
        let url = try #require(URL(string: LedgerScaleOutTests.front + path))
        let response = try await balancer.send(
            HTTPRequest(method: .post, url: url, headers: [("Content-Type", "application/json")] + headers, body: body), to: instance)
        return LedgerFixture.Answer(status: response.status, body: response.body)
    }
}
