// The verifier deployments the benchmarks drive (service instances in child processes, SQLite or one PostgreSQL;
// two PostgreSQL deployments, of one and two instances, can run side by side on the same database), and the wallet
// side that prepares encrypted responses for them.

import BenchmarkSupport
import Crypto
import MDoc
import Foundation
import HolderKit
import OpenID4VP
import SDJWT
import TesseraCore
import TesseraJOSE
import TesseraTrust
import X509
import TesseraHTTP
import HTTPTransport
import TesseraTrustTesting

/// One deployment: `instances` services sharing one database and one base URL (the first instance's), each pinned
/// to its own core when `pinned`.
struct Deployment: Sendable, Hashable {
    /// `floor`: not the verifier but the ServiceFloor server (HTTP stack, SQLite and the crypto floor only).
    /// `floorOnFluent`: the same floor with its statements through Fluent's SQLite driver (before issue 29).
    enum Database: Sendable, Hashable {
        case sqlite, postgres, floor, floorOnFluent

        var isFloor: Bool { self == .floor || self == .floorOnFluent }
    }
    let database: Database
    let instances: Int
    let pinned: Bool
}

/// A response ready to post: where (the instance a round-robin load balancer picks) and the form body.
struct PreparedResponse: Sendable {
    let url: URL
    let body: Data
}

/// The running deployments and the wallet, made in `setup`.
actor World {
    static let shared = World()

    private var running: [Deployment: [ServiceProcess]] = [:]
    private var scratch: URL?
    private var http: AsyncHTTPClientTransport?
    private var walletConfig: WalletConfiguration?
    private var credentials: [WalletCredential] = []
    private var issuerRoot: String?

    /// Starts `deployments` (stopping any other that runs), one after the other.
    func start(_ deployments: [Deployment]) async throws {
        for (deployment, services) in running where !deployments.contains(deployment) {
            services.forEach { $0.stop() }
            running[deployment] = nil
        }
        for deployment in deployments where running[deployment] == nil { try start(deployment) }
    }

    private func start(_ deployment: Deployment) throws {
        if deployment.database.isFloor {
            let scratch = try makeScratchWithIssuer()
            let floor = try ServiceProcess(
                executable: ServiceProcess.floorBinary,
                arguments: [scratch.appendingPathComponent("floor.sqlite").path] + (deployment.database == .floorOnFluent ? ["--fluent"] : []),
                environment: [:], core: deployment.pinned ? 0 : nil)
            running[deployment] = [floor]
            if http == nil { http = AsyncHTTPClientTransport() }
            return
        }
        let scratch = try makeScratchWithIssuer()
        let home = scratch.appendingPathComponent("home")
        let databaseURL: String
        switch deployment.database {
        case .sqlite: databaseURL = "sqlite://" + scratch.appendingPathComponent("transactions.sqlite").path
        case .floor, .floorOnFluent:
            throw BenchmarkFailure("the floor is started above")
        case .postgres:
            databaseURL = try BenchmarkDeployment.postgresURL()
        }
        var services: [ServiceProcess] = []
        for index in 0..<deployment.instances {
            // Started one after the other: the first creates the client identity in `home`, the others load it.
            services.append(
                try ServiceProcess.verifier(
                    home: home, trust: issuerRoot ?? "", database: databaseURL, baseURL: services.first?.url,
                    core: deployment.pinned ? ServiceProcess.core(for: index) : nil))
        }
        running[deployment] = services
        let rootPEM = try String(contentsOf: home.appendingPathComponent("verifier/root.pem"), encoding: .utf8)
        let transport = http ?? AsyncHTTPClientTransport()
        http = transport
        walletConfig = WalletConfiguration(
            httpClient: transport, verifierTrustAnchors: [try Certificate(pemEncoded: rootPEM)], allowsLoopbackHTTP: true)
    }

    func stop() {
        running.values.forEach { $0.forEach { $0.stop() } }
        running = [:]
    }

    /// `count` responses prepared for `deployment` (not measured), then posted from `inFlight` clients (measured).
    func batch(_ count: Int, inFlight: Int, on deployment: Deployment) async throws -> BatchCost {
        guard let services = running[deployment], let http else { throw BenchmarkFailure("\(deployment) is not running") }
        let prepared = deployment.database.isFloor ? try prepareFloor(count, on: services) : try await prepare(count, on: services)
        return try await measureBatch(count, lanes: inFlight, on: services) { index in
            let answer = try await http.send(HTTPRequest(
                method: .post, url: prepared[index].url,
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: prepared[index].body))
            guard answer.status == 200 else {
                throw BenchmarkFailure("response refused: \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }

    /// `count` transactions started on the first instance, each with its encrypted response, spread round-robin over
    /// the instances as a load balancer in front of them would.
    private func prepare(_ count: Int, on services: [ServiceProcess]) async throws -> [PreparedResponse] {
        guard let http, let walletConfig, let first = services.first, let createURL = URL(string: first.url + "/api/transactions")
        else { throw BenchmarkFailure("no deployment running") }
        var prepared: [PreparedResponse] = []
        prepared.reserveCapacity(count)
        for index in 0..<count {
            let created = try await http.send(HTTPRequest(
                method: .post, url: createURL, headers: [("Content-Type", "application/json")],
                body: Data(#"{"template":"pid_basic"}"#.utf8)))
            guard let link = (try? JSONValue.parse(created.body))?["authorization_request_uri"]?.stringValue else {
                throw BenchmarkFailure("creating a transaction failed: \(String(decoding: created.body, as: UTF8.self))")
            }
            let request = try await resolveAuthorizationRequest(
                try await parseAuthorizationRequest(requestUri: link, walletConfig: walletConfig), walletConfig: walletConfig)
            let response = try await createAuthorizationResponse(
                request: request, selectedCredentials: try request.match(credentials).preferredSelection(), walletConfig: walletConfig)
            guard let encryption = request.destination.encryption, var target = URLComponents(string: request.destination.uri) else {
                throw BenchmarkFailure("the request asks for no encrypted response")
            }
            target.port = services[index % services.count].port
            guard let url = target.url else { throw BenchmarkFailure("bad response URI \(request.destination.uri)") }
            let jwe = try CompactJWE.encrypt(
                response.parameters.serialized(), to: encryption.key, enc: encryption.enc, kid: encryption.key.kid,
                random: SystemRandomSource())
            let body = Data(FormURLEncoding.encode([("response", jwe.compact)]).utf8)
            responseBodySize = body.count
            prepared.append(PreparedResponse(url: url, body: body))
        }
        return prepared
    }

    /// `count` posts for the service floor: its 4,096 states in turn, each with a form body of a real response's size.
    private func prepareFloor(_ count: Int, on services: [ServiceProcess]) throws -> [PreparedResponse] {
        defer { floorNext += count }
        let bodySize = responseBodySize ?? 2_048
        guard let floor = services.first else { throw BenchmarkFailure("the service floor is not running") }
        let body = Data(("response=" + String(repeating: "A", count: max(0, bodySize - 9))).utf8)
        return try (0..<count).map { index in
            guard let url = URL(string: floor.url + "/response/s\((floorNext + index) % 4096)") else { throw BenchmarkFailure("bad floor URL") }
            return PreparedResponse(url: url, body: body)
        }
    }

    private var floorNext = 0
    /// The size of the last real response prepared (the floor posts bodies of that size).
    private var responseBodySize: Int?

    /// A scratch directory holding the PID issuer's root (the services' --trust), and the wallet's PID signed by it.
    private func makeScratchWithIssuer() throws -> URL {
        if let scratch { return scratch }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-verifier-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var random = SeededRandomSource(seed: 61).generator
        let now = Date()
        let validity = (now.addingTimeInterval(-3600), now.addingTimeInterval(86_400))
        let issuerCA = try X5CTestPKI.issueRoot(.init(commonName: "Bench PID Root", notBefore: validity.0, notAfter: validity.1), random: &random)
        let issuer = try X5CTestPKI.issue(.init(commonName: "Bench PID Issuer", notBefore: validity.0, notAfter: validity.1), by: issuerCA, random: &random)
        guard case .p256(let issuerKey) = issuer.privateKey else { throw BenchmarkFailure("the test issuer key is not P-256") }
        let rootPath = directory.appendingPathComponent("issuer-root.pem")
        try Data(try issuerCA.certificatePEM().utf8).write(to: rootPath)
        let holderKey = P256.Signing.PrivateKey()
        let claims: JSONObject = ["given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12"]
        let paths = try ["given_name", "family_name", "birthdate"].map { try ClaimsPathPointer(keys: $0) }
        let sdJWT = try SDJWTIssuer(signingKey: .es256(issuerKey), clock: SystemClock(), random: SystemRandomSource()).issueVC(
            vct: "urn:eudi:pid:1", claims: claims, disclosable: paths, holderKey: JWSSigningKey.es256(holderKey).publicJWK,
            issuer: "https://issuer.example.com", validity: 86_400, x5c: [try issuer.derEncoded()])
        credentials = [.sdJWTVC(try SDJWTVCCredential(id: "pid", compactSDJWT: sdJWT.compact, holderKey: SoftwareDeviceKey(holderKey)))]
        issuerRoot = rootPath.path
        scratch = directory
        return directory
    }
}

extension ServiceProcess {
    /// `tessera verifier serve` with `home` as TESSERA_HOME (its client identity lives there, shared by every
    /// instance started with the same home), waiting for its "bound" line.
    static func verifier(home: URL, trust: String, database: String, baseURL: String?, core: Int?) throws -> ServiceProcess {
        var arguments = [
            "verifier", "serve", "--port", "0", "--trust", trust, "--database", database, "--lifetime", "3600", "--auto-migrate",
        ]
        if let baseURL { arguments += ["--base-url", baseURL] }
        return try ServiceProcess(executable: binary, arguments: arguments, environment: ["TESSERA_HOME": home.path], core: core)
    }
}
