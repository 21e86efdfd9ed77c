import Crypto
import Foundation
import HTTPTransport
import HolderKit
import MDoc
import OpenID4VP
import SDJWT
import Synchronization
import TesseraCore
import TesseraHTTP
import TesseraJOSE
import TesseraTestSupport
import TesseraTrustTesting
import Testing
import X509

/// Two `tessera verifier serve` processes on one (fresh) PostgreSQL database, known to wallets and relying parties by
/// one base URL behind a load balancer (issue 29): transactions created, Request Objects fetched, responses posted and
/// results redeemed through it, each step landing on either instance, and one process killed with SIGKILL mid-way.
/// Proves: every acknowledged transaction is there at the survivor, every acknowledged verdict stands, and a response
/// code handed out but not yet redeemed redeems there, once (nothing acknowledged lost); one response raced at both
/// instances gets one verdict, and one response code raced at both redeems once (single use across instances); the
/// survivor alone carries the load on, and only requests to the killed instance failed.
@Suite(.serialized)
struct VerifierScaleOutTests {
    /// The base URL both instances announce (`--base-url`); nothing listens there (`LoadBalancer`).
    static let front = LoadBalancer.nowhere

    @Test(.enabled(if: FreshPostgresDatabase.available, "needs TESSERA_TEST_POSTGRES_URL"))
    func twoInstancesShareTheLoadAndTheSurvivorLosesNothingAfterKill9() async throws {
        // A database of its own: the processes purge transactions a day past their expiry by the real clock, which
        // on the shared database took the transactions of suites on a test clock two months back.
        try await FreshPostgresDatabase.withScratch("tessera-verifier-scaleout") { try await deploy(on: $0, in: $1) }
    }

    private func deploy(on databaseURL: String, in directory: URL) async throws {
        let started = ContinuousClock.now
        let issuer = try PIDIssuer(directory: directory)
        let arguments = [
            "verifier", "serve", "--port", "0", "--database", databaseURL,
            "--trust", issuer.rootPath, "--base-url", Self.front,
        ]
        // One TESSERA_HOME: the first instance creates the client identity (key and x509_hash client_id), the
        // second loads it; the first also migrates the fresh database, the second would refuse to start if anything
        // were left to migrate (the PostgreSQL default). `bound` is the instance's own socket (`listening on` names
        // the base URL).
        let environment = ["TESSERA_HOME": directory.path]
        let first = try await ServiceProcess.start(arguments + ["--auto-migrate"], environment: environment, ready: "bound ")
        defer { first.stop() }
        let second = try await ServiceProcess.start(arguments, environment: environment, ready: "bound ")
        defer { second.stop() }
        let verifierRoot = try Certificate(pemEncoded: String(contentsOf: directory.appendingPathComponent("verifier/root.pem"), encoding: .utf8))

        let http = AsyncHTTPClientTransport(configuration: .init(connectTimeout: .seconds(2)))
        do {
            let balancer = LoadBalancer(front: Self.front, instances: [first.baseURL, second.baseURL], transport: http)
            let wallet = Wallet(
                config: WalletConfiguration(httpClient: balancer, verifierTrustAnchors: [verifierRoot], allowsLoopbackHTTP: true),
                credentials: try issuer.credentials())
            try await run(first: first, second: second, balancer: balancer, wallet: wallet)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
        print("verifier scale-out: \(ContinuousClock.now - started) in all")
    }

    private func run(first: ServiceProcess, second: ServiceProcess, balancer: LoadBalancer, wallet: Wallet) async throws {
        let (a, b) = (first.baseURL, second.baseURL)
        let (atA, atB) = (balancer.pinned(to: a), balancer.pinned(to: b))
        let log = TransactionLog()
        let load = ScaleOutLoad(workers: 4, isTransportFailure: Self.isTransportFailure) { _, round in
            let (id, uri) = try await Self.createTransaction(balancer)
            log.created(id)
            let prepared = try await PreparedResponse(walletConfig: wallet.config, credentials: wallet.credentials, requestURI: uri)
            let code = try await Self.respond(prepared, balancer)
            log.verdict(id, code: code)
            // Every other result is redeemed now; the others are left for the survivor.
            if round.isMultiple(of: 2) {
                log.redeeming(id)
                let result = try await Self.call(balancer, .get, "/api/transactions/\(id)?response_code=\(code)")
                guard result.status == 200, result.body?["verified_claims"]?["pid"] != nil else {
                    throw FixtureError("redeeming answered \(result.status) \(String(describing: result.body))")
                }
                log.redeemed(id)
            }
        }
        load.start()

        // Under load, both instances up: one response raced at both gets one verdict; its response code raced at
        // both redeems once.
        for race in 0..<3 {
            let (id, uri) = try await Self.createTransaction(balancer)
            let prepared = try await PreparedResponse(walletConfig: wallet.config, credentials: wallet.credentials, requestURI: uri)
            let responses = try await Self.race([atA, atB, atA, atB]) { client in
                try await Self.call(client, .post, prepared.request.destination.uri, form: prepared.body)
            }
            #expect(responses.map(\.status).sorted() == [200, 400, 400, 400], "race \(race): \(responses.map(\.status))")
            #expect(responses.filter { $0.status == 400 }.allSatisfy { $0.body?["error"] == "invalid_request" })
            let redirect = try #require(responses.first { $0.status == 200 }?.body?["redirect_uri"]?.stringValue)
            let code = try #require(URLComponents(string: redirect)?.queryItems?.first { $0.name == "response_code" }?.value)
            let redeemed = try await Self.race([atA, atB, atA, atB]) { client in
                try await Self.call(client, .get, "/api/transactions/\(id)?response_code=\(code)")
            }
            #expect(redeemed.map(\.status).sorted() == [200, 404, 404, 404], "race \(race): \(redeemed.map(\.status))")
        }

        let survivorTime = try await load.killMidway(first, instance: a, balancer: balancer, before: 12, after: 12)
        await load.stop()
        let tally = load.current
        #expect(tally.findings.isEmpty, "\(tally.findings)")
        #expect(balancer.transportFailures(at: b) == 0, "the survivor failed to answer")
        #expect(balancer.answers(from: a) > 0 && balancer.answers(from: b) > 0)

        // What the load was told, read back through the survivor.
        var lost: [String] = []
        let transactions = log.all
        for (id, entry) in transactions {
            let status = try await Self.call(atB, .get, "/api/transactions/\(id)")
            guard status.status == 200 else {
                lost.append("\(id): created, now \(status.status)")
                continue
            }
            guard let code = entry.code else { continue }
            if status.body?["status"] != "completed" { lost.append("\(id): verdict acknowledged, now \(String(describing: status.body?["status"]))") }
            let redeemed = try await Self.call(atB, .get, "/api/transactions/\(id)?response_code=\(code)")
            switch entry.redemption {
            case .acknowledged:
                #expect(redeemed.status == 404, "\(id): a redeemed response code redeemed again at the survivor")
            case .none:
                #expect(redeemed.status == 200 && redeemed.body?["verified_claims"]?["pid"] != nil, "\(id): a handed-out response code does not redeem")
            case .unanswered:
                // The killed instance may have redeemed it before it died: once at most, either way.
                #expect([200, 404].contains(redeemed.status))
            }
            #expect(try await Self.call(atB, .get, "/api/transactions/\(id)?response_code=\(code)").status == 404)
        }
        #expect(lost.isEmpty, "acknowledged but lost: \(lost)")
        print(
            "verifier scale-out: \(tally.succeeded) presentations (\(tally.succeededOnSurvivor) on the survivor alone in \(survivorTime)), "
                + "\(tally.transportFailures) cut off by the kill, \(transactions.count) transactions checked")
    }

    /// No answer from an instance: from the balancer itself, or from the wallet fetching a Request Object.
    static func isTransportFailure(_ error: any Error) -> Bool {
        if error is HTTPError { return true }
        if case OpenID4VPError.httpTransport = error { return true }
        return false
    }

    static func createTransaction(_ client: any HTTPClient) async throws -> (id: String, uri: String) {
        let answer = try await call(client, .post, "/api/transactions", json: ["template": "pid_basic"])
        guard answer.status == 201, let id = answer.body?["transaction_id"]?.stringValue,
            let uri = answer.body?["authorization_request_uri"]?.stringValue
        else { throw FixtureError("creating a transaction answered \(answer.status) \(String(describing: answer.body))") }
        return (id, uri)
    }

    /// Posts the wallet's response; returns the response code of the redirect.
    static func respond(_ prepared: PreparedResponse, _ client: any HTTPClient) async throws -> String {
        let answer = try await call(client, .post, prepared.request.destination.uri, form: prepared.body)
        guard answer.status == 200, let redirect = answer.body?["redirect_uri"]?.stringValue,
            let code = URLComponents(string: redirect)?.queryItems?.first(where: { $0.name == "response_code" })?.value
        else { throw FixtureError("the response answered \(answer.status) \(String(describing: answer.body))") }
        return code
    }

    static func call(
        _ client: any HTTPClient, _ method: HTTPRequest.Method, _ path: String, json: JSONObject? = nil, form: String? = nil
    ) async throws -> (status: Int, body: JSONObject?) {
        try await ServiceFixture.call(client, method, path.hasPrefix("http") ? path : front + path, json: json, form: form)
    }

    static func race(
        _ clients: [any HTTPClient], _ send: @escaping @Sendable (any HTTPClient) async throws -> (status: Int, body: JSONObject?)
    ) async throws -> [(status: Int, body: JSONObject?)] {
        try await withThrowingTaskGroup(of: (status: Int, body: JSONObject?).self) { group in
            for client in clients { group.addTask { try await send(client) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}

/// The wallet side: its configuration (HTTP through the balancer, trusting the verifier's root) and its PID.
private struct Wallet: Sendable {
    let config: WalletConfiguration
    let credentials: [WalletCredential]
}

/// A PID issuer under a root of its own (the root in a PEM file for `--trust`), and a holder key.
private struct PIDIssuer {
    let rootPath: String
    let key: P256.Signing.PrivateKey
    let chain: [Data]
    let holderKey = P256.Signing.PrivateKey()

    init(directory: URL) throws {
        var random = SystemRandomNumberGenerator()
        let (root, leaf) = try X5CTestPKI.issueChain(rootCommonName: "Scale-out PID Root", leafCommonName: "Scale-out PID Issuer", now: Date(), random: &random)
        guard case .p256(let key) = leaf.privateKey else { throw FixtureError("the test issuer key is not P-256") }
        self.key = key
        chain = [try leaf.derEncoded()]
        rootPath = directory.appendingPathComponent("pid-root.pem").path
        try root.certificatePEM().write(toFile: rootPath, atomically: true, encoding: .utf8)
    }

    /// A PID SD-JWT VC bound to `holderKey`, without a status (the processes fetch no status list).
    func credentials() throws -> [WalletCredential] {
        let issuer = try SDJWTIssuer(signingKey: .es256(key), clock: FixedClock(Date().addingTimeInterval(-60)), random: SystemRandomSource())
        let claims: JSONObject = ["given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12", "age_equal_or_over": ["18": true]]
        let disclosable = try ["given_name", "family_name", "birthdate", "age_equal_or_over"].map { try ClaimsPathPointer(keys: $0) }
            + [try ClaimsPathPointer(keys: "age_equal_or_over", "18")]
        let pid = try issuer.issueVC(
            vct: "urn:eudi:pid:1", claims: claims, disclosable: disclosable, holderKey: JWSSigningKey.es256(holderKey).publicJWK,
            issuer: "https://issuer.example.com", validity: 86_400, x5c: chain
        ).compact
        return [.sdJWTVC(try SDJWTVCCredential(id: "pid", compactSDJWT: pid, holderKey: SoftwareDeviceKey(holderKey)))]
    }
}

/// What the load was told, by transaction: created; the verdict's response code; its redemption.
private final class TransactionLog: Sendable {
    enum Redemption {
        /// Not tried: the code must redeem at the survivor.
        case none
        /// Sent, no answer: the code may or may not be used up.
        case unanswered
        /// Answered with the result: the code is used up.
        case acknowledged
    }

    struct Entry {
        var code: String?
        var redemption = Redemption.none
    }

    private let entries = Mutex<[String: Entry]>([:])

    func created(_ id: String) { entries.withLock { $0[id] = Entry() } }
    func verdict(_ id: String, code: String) { entries.withLock { $0[id]?.code = code } }
    func redeeming(_ id: String) { entries.withLock { $0[id]?.redemption = .unanswered } }
    func redeemed(_ id: String) { entries.withLock { $0[id]?.redemption = .acknowledged } }
    var all: [String: Entry] { entries.withLock { $0 } }
}
