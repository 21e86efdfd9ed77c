// The Wallet Provider's scale-out (issue 29): the throughput of two instances against one, on one PostgreSQL
// database ($TESSERA_BENCH_POSTGRES_URL, which scripts/bench sets). Each instance is `tessera provider serve` in a
// child process (BenchmarkSupport's ServiceProcess), pinned to a core: the one-instance deployment to core 0, the
// two-instance one to cores 0 and 1, all three started in setup and sharing the provider directory (its signing and
// federation keys) and the database. Each instance keeps its own base URL: nothing the load sends depends on it.
//
// The load, a wallet's mix: nonce + WIA issuance. Setup signs up one account (POST /api/accounts, POST /api/login
// with its TOTP) and registers 16 devices through POST /wallet-instance (8 iOS, 8 Android, keys attested by a test
// authority whose root the instances trust, --trust-test-attestation-root). A batch of N: N `GET /nonce` (measured),
// N `wia-request+jwt` built for those nonces by the devices (not measured: the device's work), N
// `POST /wallet-instance-attestation` (measured); 16 in flight, device l owning client l (an iOS key's assertion
// counter must rise from one request to the next), request k to instance k mod n as a round-robin load balancer
// would send it. A batch's figure is its 2N requests over the two measured phases' wall time.

import AsyncHTTPClient
import BenchmarkSupport
import Crypto
import DeviceAttestationTesting
import Foundation
import Synchronization
import TesseraCore
import TesseraJOSE
import Vapor
@_spi(Benchmarks) import WalletProvider
import X509

/// The nonces of one batch, filled in by the clients in parallel.
private final class Nonces: Sendable {
    private let values: Mutex<[String]>
    init(_ count: Int) { values = Mutex([String](repeating: "", count: count)) }
    func set(_ index: Int, _ nonce: String) { values.withLock { $0[index] = nonce } }
    var all: [String] { values.withLock { $0 } }
}

/// The two deployments and the registered devices, started in setup.
actor ScaleOut {
    static let shared = ScaleOut()
    static let lanes = 16

    private(set) var one: [ServiceProcess] = []
    private(set) var two: [ServiceProcess] = []
    private var devices: [WIAKey] = []
    private var directory: URL?
    let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: ScaleOut.lanes)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    func start() async throws {
        let database = try BenchmarkDeployment.postgresURL()
        let directory = try BenchmarkDeployment.scratchDirectory("tessera-wp-scale")
        self.directory = directory
        let now = Date()
        let authority = try AndroidTestAttestationAuthority.generate(
            commonName: "Bench Attestation Root", notBefore: now.addingTimeInterval(-86_400),
            notAfter: now.addingTimeInterval(365 * 86_400), random: nil)
        let root = directory.appendingPathComponent("test-root.pem")
        try Data(try authority.rootCertificate.serializeAsPEM().pemString.utf8).write(to: root)
        let digest = WIAKey.application.signingCertificateDigests.first.map { $0.map { String(format: "%02x", $0) }.joined() } ?? ""
        // One after the other: the first creates the keys and the tables (--auto-migrate: PostgreSQL is not migrated at
        // start-up otherwise), the others load them.
        func instance(core: Int) throws -> ServiceProcess {
            try ServiceProcess(
                executable: ServiceProcess.binary,
                arguments: [
                    "provider", "serve", "--host", "127.0.0.1", "--port", "0", "--database", database, "--auto-migrate",
                    "--directory", directory.appendingPathComponent("provider").path, "--trust-test-attestation-root", root.path,
                    "--password-cost", "m=256,t=1,p=1",
                    "--apple-app", "\(WIAKey.appleApp.teamID).\(WIAKey.appleApp.bundleID)",
                    "--android-app", "\(WIAKey.application.packageName):\(digest)",
                ],
                environment: ["TESSERA_HOME": directory.appendingPathComponent("home").path], core: core, ready: "listening on ")
        }
        one = [try instance(core: ServiceProcess.core(for: 0))]
        two = [try instance(core: ServiceProcess.core(for: 0)), try instance(core: ServiceProcess.core(for: 1))]
        let session = try await account(at: one[0].url)
        for index in 0..<Self.lanes {
            let platform: WIAKey.Platform = index < Self.lanes / 2 ? .ios : .android
            let (device, registration) = try WIAKey.attested(
                platform, authority: authority, now: now, clock: SystemClock(), challenge: try await nonce(at: one[0].url))
            try await post(one[0].url + "/wallet-instance", json: registration, bearer: session, expecting: .noContent)
            devices.append(device)
        }
        // One batch on every instance, each WIA checked, before anything is timed.
        for service in one + two {
            let wia = try await WIAKey.post(try devices[0].request(nonce: try await nonce(at: service.url)).jwt, to: service.url, client: client)
            try WIAKey.check(wia)
        }
    }

    /// `count` nonces then `count` WIA issuances on `services`, 16 in flight; both phases measured, the building of
    /// the requests between them not.
    func batch(_ count: Int, on services: [ServiceProcess]) async throws -> BatchCost {
        let (client, devices) = (client, devices)
        let nonces = Nonces(count)
        let first = try await measureBatch(count, lanes: Self.lanes, on: services) { index in
            nonces.set(index, try await Self.nonce(at: services[index % services.count].url, client: client))
        }
        let issued = nonces.all
        let requests = try (0..<count).map { try devices[$0 % Self.lanes].request(nonce: issued[$0]).jwt }
        let second = try await measureBatch(count, lanes: Self.lanes, on: services) { index in
            _ = try await WIAKey.post(requests[index], to: services[index % services.count].url, client: client)
        }
        return first + second
    }

    func stop() async {
        (one + two).forEach { $0.stop() }
        (one, two, devices) = ([], [], [])
        try? await client.shutdown()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    // MARK: HTTP

    private func nonce(at baseURL: String) async throws -> String { try await Self.nonce(at: baseURL, client: client) }

    /// `GET /nonce`: the nonce answered.
    static func nonce(at baseURL: String, client: HTTPClient) async throws -> String {
        let response = try await client.execute(HTTPClientRequest(url: baseURL + "/nonce"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4096)
        guard response.status == .ok, let nonce = (try? JSONValue.parse(body.readableBytesView))?["nonce"]?.stringValue else {
            throw BenchmarkFailure("GET /nonce answered \(response.status)")
        }
        return nonce
    }

    /// An account signed up and logged in (its TOTP computed from the secret the sign-up answered): its session token.
    private func account(at baseURL: String) async throws -> String {
        let (email, password) = ("scale@example.org", "correct horse battery staple")
        let created = try await post(
            baseURL + "/api/accounts", json: ["email": .string(email), "password": .string(password)], expecting: .created)
        guard let secret = created["totp_secret"]?.stringValue.flatMap({ Base32.decode($0) }) else {
            throw BenchmarkFailure("the sign-up answered no TOTP secret")
        }
        let code = TOTP(secret: secret).code(at: Date())
        let session = try await post(
            baseURL + "/api/login", json: ["email": .string(email), "password": .string(password), "totp": .string(code)], expecting: .ok)
        guard let token = session["session_token"]?.stringValue else { throw BenchmarkFailure("the login answered no session") }
        return token
    }

    @discardableResult
    private func post(_ url: String, json: JSONObject, bearer: String? = nil, expecting status: HTTPResponseStatus) async throws -> JSONObject {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        request.body = .bytes(ByteBuffer(bytes: json.serialized()))
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == status else { throw BenchmarkFailure("\(url) answered \(response.status): \(String(buffer: answer))") }
        return (try? JSONValue.parse(answer.readableBytesView))?.objectValue ?? [:]
    }
}
