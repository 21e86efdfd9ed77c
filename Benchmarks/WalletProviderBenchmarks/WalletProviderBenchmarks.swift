// Wallet Provider throughput (package-benchmark), each next to its floor measured in the same run.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target WalletProviderBenchmarks
//   (add --filter 'nonce.*' or --filter '.*Android.*' to run a subset)
//
// package-benchmark runs every benchmark in its own process; each process starts only the servers it needs, on
// loopback, each with its own SQLite file (WAL, synchronous=NORMAL) in a temporary directory.
//
// nonce: one iteration sends 1,024 `GET /nonce` over HTTP/1.1 keep-alive from one AsyncHTTPClient with 16 requests
//   in flight. "provider" is a real WalletProviderServer (32 random bytes, one INSERT into wp_nonces, the JSON
//   answer); "bare Vapor" is an Application on loopback with one route answering the same JSON
//   ({"nonce":"<43 base64url chars>"}, fresh random bytes, same headers) and no middleware, as the provider has
//   none but its error mapper; "bare Vapor async route" is the same from an `async` closure, as the provider's routes
//   are (a Swift task per request). Client, servers and database share the machine's cores; "requests/s" is
//   1,024 / the iteration's wall time, "CPU (μs)" the CPU time the whole process (client included) spent on it.
//   Goal of issue 11: provider >= 0.8 x bare.
// registration (service): the server-side work of one `POST /wallet-instance` after the Bearer token is checked,
//   through `@_spi(Benchmarks)` (ProviderBenchmarkSupport.swift): the JSON body parsed, the challenge consumed
//   (DELETE ... RETURNING), the key attestation verified by the real verifier at the sample's validation_time
//   (FixedClock), the device posture checked, the instance inserted. Not measured, per iteration: seeding the
//   sample's challenge as an issued nonce (the sample's challenge is fixed inside its attestation, so no nonce the
//   server issues can match it) and deleting the inserted row afterwards (the App Attest hardware_key_tag must be
//   the sample's keyId, so it can only be registered again once removed). One registration at a time, so the
//   throughput is registrations per second on one core.
// registration (HTTP): the same, but the measured part is the whole `POST /wallet-instance` on loopback with the
//   account's Bearer token (HTTP, session lookup, JSON body, then the above), answered 204.
//   Before anything is timed, setup registers the sample through both paths and checks that registering the same
//   hardware_key_tag again is refused (422 validation_error).
// verifier: AppAttestVerifier / AndroidKeyAttestationVerifier alone on the same sample with the provider's policy
//   (parsing, chain, extensions, rules), no JSON, base64 or database: where registration time goes beyond the floor.
// "CPU (μs)": the process CPU time (all threads, clock_gettime(CLOCK_PROCESS_CPUTIME_ID)) of the measured part;
//   1e6 / CPU (μs) is the rate per core, independent of what else the machine runs.
// floor: the signature verifications alone of the same sample, on the received TBS bytes with keys parsed in
//   advance: Apple, credCert by Apple App Attestation CA 1 and CA 1 by the Apple App Attestation Root CA
//   (ECDSA P-384); Android (io-wallet StrongBox chain), leaf by intermediate (P-256), intermediate by intermediate
//   (P-384), that by the Google root key (RSA-4096), and the root's self-signature (RSA-4096), as the verifier
//   checks it. Goal of issue 11: registrations/s >= 0.7 x floor/s.
//
// Samples (Benchmarks/Fixtures, copies of the public vectors): Apple `ios-pagopa-io-wallet-dev-2024` (App Attest,
// development environment, client data = the challenge string, as the provider derives it), Android
// `android-pagopa-io-wallet-strongbox-2024` (4 certificates, challenge "randomvalue").

import Argon2
import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Crypto
import DeviceAttestation
import Foundation
import TesseraCBOR
import TesseraCore
import TesseraJOSE
import TesseraTrust
import TesseraTrustTesting
import Vapor
@_spi(Benchmarks) import WalletProvider
import X509
import _CryptoExtras

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("WalletProviderBenchmarks: \(label): \(error)") }
}

/// "CPU (μs)": process CPU time of the measured part of one iteration.
private let cpuMicroseconds = BenchmarkMetric.custom("CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)

// MARK: - Samples

/// The repository root: this file is Benchmarks/WalletProviderBenchmarks/WalletProviderBenchmarks.swift.
private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func sample(_ file: String, id: String) throws -> JSONValue {
    let url = repositoryRoot.appendingPathComponent("Benchmarks/Fixtures/\(file)")
    let all = try JSONValue.parse(try Data(contentsOf: url))
    guard let found = all.arrayValue?.first(where: { $0["id"]?.stringValue == id }) else {
        throw BenchmarkFailure("\(file) has no sample \(id)")
    }
    return found
}

private func instant(_ text: String?) throws -> Date {
    guard let text, let date = ISO8601DateFormatter().date(from: text) else { throw BenchmarkFailure("bad time \(text ?? "nil")") }
    return date
}

/// What a registration of one real device sample needs: the challenge inside it, the request fields, the app to
/// configure, and the instant at which its certificates are valid.
struct DeviceSample: Sendable {
    enum Platform: Sendable { case apple, android }
    let platform: Platform
    let challenge: String
    let keyAttestation: String
    /// Apple: the keyId (base64), which the provider requires as hardware_key_tag; Android: nil (any fresh tag).
    let fixedHardwareKeyTag: String?
    let validationTime: Date
    let appleApp: AppAttestAppID?
    let androidApp: AndroidApplication?
    /// DER certificates, leaf first (Apple: x5c, without the root).
    let chain: [Data]

    /// The verifier alone, as the provider calls it: the policy made once (as the provider's configuration holds
    /// it), then per call the verifier, the challenge derivation and the check at the sample's instant.
    func attestationVerifier() -> @Sendable () -> Bool {
        let (challenge, instant, chain) = (challenge, validationTime, chain)
        switch platform {
        case .apple:
            guard let app = appleApp, let object = Data(base64Encoded: keyAttestation),
                let tag = fixedHardwareKeyTag, let keyID = Data(base64Encoded: tag)
            else { return { false } }
            let policy = AppAttestPolicy(apps: [app], allowedEnvironments: [.production, .development])
            return {
                let outcome = AppAttestVerifier(policy: policy).verifyAttestation(
                    object, clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), keyID: keyID, at: instant)
                return outcome.facts != nil && outcome.failures.isEmpty
            }
        case .android:
            guard let app = androidApp else { return { false } }
            let policy = AndroidAttestationPolicy(applications: [app])
            return {
                let outcome = AndroidKeyAttestationVerifier(policy: policy).verify(chain: chain, challenge: Data(challenge.utf8), at: instant)
                return outcome.facts != nil && outcome.failures.isEmpty
            }
        }
    }

    static func apple() throws -> DeviceSample {
        let json = try sample("apple-app-attest.json", id: "ios-pagopa-io-wallet-dev-2024")
        guard let objectB64 = json["attestation"]?["attestation_object_b64"]?.stringValue,
            let object = Data(base64Encoded: objectB64),
            let keyID = json["attestation"]?["key_id_b64"]?.stringValue,
            let challenge = json["attestation"]?["client_data"]?["utf8"]?.stringValue,
            let team = json["expected"]?["team_id"]?.stringValue, let bundle = json["expected"]?["bundle_id"]?.stringValue
        else { throw BenchmarkFailure("the Apple sample lacks a field") }
        guard case .map(let map) = try CBOR.decode(object), let x5c = map["attStmt"]?.mapValue?["x5c"]?.arrayValue else {
            throw BenchmarkFailure("the attestation object has no x5c")
        }
        return DeviceSample(
            platform: .apple, challenge: challenge, keyAttestation: objectB64, fixedHardwareKeyTag: keyID,
            validationTime: try instant(json["validation_time"]?.stringValue),
            appleApp: AppAttestAppID(teamID: team, bundleID: bundle), androidApp: nil, chain: x5c.compactMap(\.bytesValue))
    }

    static func android() throws -> DeviceSample {
        let json = try sample("android-key-attestation.json", id: "android-pagopa-io-wallet-strongbox-2024")
        guard let chainB64 = json["certificate_chain_b64"]?.arrayValue?.compactMap(\.stringValue),
            let challenge = json["expected"]?["challenge"]?["utf8"]?.stringValue,
            let package = json["expected"]?["attestation_application_id"]?["packages"]?[0]?["name"]?.stringValue,
            let digests = json["expected"]?["attestation_application_id"]?["signature_digests_sha256_b64"]?.arrayValue
        else { throw BenchmarkFailure("the Android sample lacks a field") }
        // The IT-Wallet apps' encoding: base64 of "base64(DER),base64(DER),…", leaf first.
        let keyAttestation = Data(chainB64.joined(separator: ",").utf8).base64EncodedString()
        return DeviceSample(
            platform: .android, challenge: challenge, keyAttestation: keyAttestation, fixedHardwareKeyTag: nil,
            validationTime: try instant(json["validation_time"]?.stringValue), appleApp: nil,
            androidApp: AndroidApplication(
                packageName: package, signingCertificateDigests: Set(digests.compactMap { $0.stringValue.flatMap { Data(base64Encoded: $0) } })),
            chain: chainB64.compactMap { Data(base64Encoded: $0) })
    }
}

extension JSONValue {
    fileprivate subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }
}

// MARK: - Floor

/// One certificate signature, ready to check: the TBS bytes as received, the signature bytes, the issuer's key.
struct SignatureCheck: Sendable {
    enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }
    let tbs: ArraySlice<UInt8>
    let signature: [UInt8]
    let algorithm: Certificate.SignatureAlgorithm
    let key: Key

    init(_ certificate: Certificate, issuer: Certificate) throws {
        tbs = certificate.tbsCertificateBytes
        signature = certificate.signature.rawRepresentation
        algorithm = certificate.signatureAlgorithm
        if let key = P256.Signing.PublicKey(issuer.publicKey) {
            self.key = .p256(key)
        } else if let key = P384.Signing.PublicKey(issuer.publicKey) {
            self.key = .p384(key)
        } else if let key = _RSA.Signing.PublicKey(issuer.publicKey) {
            self.key = .rsa(key)
        } else {
            throw BenchmarkFailure("unexpected issuer key type")
        }
    }

    /// Hash the TBS bytes with the algorithm's digest, then verify (ECDSA signatures are DER-decoded here too).
    func verify() -> Bool {
        switch (key, algorithm) {
        case (.p256(let key), .ecdsaWithSHA256):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: tbs))
        case (.p384(let key), .ecdsaWithSHA256):
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: tbs))
        case (.p384(let key), .ecdsaWithSHA384):
            guard let signature = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA384.hash(data: tbs))
        case (.rsa(let key), .sha256WithRSAEncryption):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: tbs), padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }

    /// Every signature the verifier checks for `sample`: Apple, each x5c link and the top one by the App Attest
    /// root; Android, each link and the root's self-signature.
    static func all(for sample: DeviceSample) throws -> [SignatureCheck] {
        var certificates = try sample.chain.map { try Certificate(derEncoded: Array($0)) }
        switch sample.platform {
        case .apple:
            guard let root = AttestationRoots.appleAppAttestation.first else { throw BenchmarkFailure("no Apple root") }
            certificates.append(root)
        case .android:
            guard let root = certificates.last else { throw BenchmarkFailure("empty chain") }
            certificates.append(root)  // the self-signature
        }
        let checks = try zip(certificates, certificates.dropFirst()).map { try SignatureCheck($0, issuer: $1) }
        guard checks.allSatisfy({ $0.verify() }) else { throw BenchmarkFailure("a floor signature does not verify") }
        return checks
    }

    var label: String {
        switch key {
        case .p256: "P-256"
        case .p384: "P-384"
        case .rsa(let key): "RSA-\(key.keySizeInBits)"
        }
    }
}

// MARK: - Servers

/// A Wallet Provider on loopback with its own SQLite file, an account and its Bearer token.
struct Provider: Sendable {
    let server: WalletProviderServer
    let directory: URL
    let accountID: String
    let session: String

    /// `clock`: the sample's validation_time for registrations (every certificate is checked at that instant).
    static func start(clock: any TesseraClock, apple: [AppAttestAppID] = [], android: [AndroidApplication] = []) async throws -> Provider {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-wp-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let (_, leaf) = try X5CTestPKI.issueChain(
            rootCommonName: "Bench Signing Root", leafCommonName: "Bench Signer", now: Date(), random: &generator)
        guard case .p256(let key) = leaf.privateKey else { throw TrustError.malformedCertificate(certificate: 0, reason: "the bench signer is not P-256") }
        let configuration = WalletProviderConfiguration(
            database: .sqlite(path: directory.appendingPathComponent("provider.sqlite").path), directory: directory,
            signingIdentity: try ProviderSigningIdentity(privateKey: key, certificateChain: [try leaf.derEncoded()]),
            apps: .init(apple: apple, android: android),
            appAttest: AppAttestPolicy(apps: apple, allowedEnvironments: [.production, .development]), clock: clock)
        // Accounts are not what is measured: small Argon2id parameters keep the start short.
        let server = try await WalletProviderServer.start(
            configuration, port: 0, passwordParameters: Argon2Parameters(memoryKiB: 256, iterations: 1, parallelism: 1))
        let account = try await server.benchmarkAccount(email: "bench@example.org", password: "correct horse battery staple")
        return Provider(server: server, directory: directory, accountID: account.accountID, session: account.sessionToken)
    }

    func shutdown() async {
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A Vapor application answering what `GET /nonce` answers, with nothing else to do: `/nonce` from a plain closure
/// (run on the event loop), `/nonce-async` from an `async` closure like every provider route (a Swift task per
/// request, hopping between the task executor and the event loop).
struct BareNonceServer: Sendable {
    let app: Application
    let baseURL: String

    static func start() async throws -> BareNonceServer {
        let app = try await Application.make(Environment(name: "production", arguments: ["bare-nonce"]))
        app.logger.logLevel = .warning
        app.middleware = Middlewares()
        let random = SystemRandomSource()
        @Sendable func answer() -> Response {
            var headers = HTTPHeaders()
            headers.contentType = .json
            headers.add(name: .cacheControl, value: "no-store")
            let body: JSONObject = ["nonce": .string(Base64URL.encode(random.bytes(32)))]
            return Response(status: .ok, headers: headers, body: .init(data: body.serialized()))
        }
        app.get("nonce") { _ -> Response in answer() }
        app.get("nonce-async") { _ async -> Response in answer() }
        try await app.asyncBoot()
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = app.http.server.shared.localAddress?.port else { throw BenchmarkFailure("no bound port") }
        return BareNonceServer(app: app, baseURL: "http://127.0.0.1:\(port)")
    }

    func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }
}

// MARK: - World

/// What one benchmark process uses, started in `setup`.
actor World {
    static let shared = World()
    static let nonceRequests = 1024
    static let concurrency = 16

    let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: World.concurrency)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()
    private(set) var nonceURL: String?
    private(set) var registrar: Registrar?
    private var provider: Provider?
    private var bare: BareNonceServer?

    /// The provider's `GET /nonce` (system clock), checked once.
    func startProviderNonce() async throws {
        let provider = try await Provider.start(clock: SystemClock())
        self.provider = provider
        nonceURL = provider.server.baseURL + "/nonce"
        try await checkNonce()
    }

    func startBareNonce(path: String) async throws {
        let bare = try await BareNonceServer.start()
        self.bare = bare
        nonceURL = bare.baseURL + path
        try await checkNonce()
    }

    /// A provider trusting `sample`'s app, its clock at the sample's validation_time.
    func startRegistration(_ sample: DeviceSample) async throws {
        let provider = try await Provider.start(
            clock: FixedClock(sample.validationTime), apple: sample.appleApp.map { [$0] } ?? [],
            android: sample.androidApp.map { [$0] } ?? [])
        self.provider = provider
        let registrar = Registrar(provider: provider, sample: sample, client: client)
        self.registrar = registrar
        // Both paths must succeed before anything is timed, and a tag registered twice must be refused.
        try await registrar.viaService(registrar.prepare())
        let first = try await registrar.prepare()
        try await registrar.post(first.body)
        let again = try await registrar.prepare(tag: first.tag)
        let refused = try await registrar.post(again.body, expecting: .unprocessableEntity)
        guard (try? JSONValue.parse(refused.readableBytesView))?["error"]?.stringValue == "validation_error" else {
            throw BenchmarkFailure("a second registration of one tag was not refused with validation_error")
        }
        try await registrar.finish(first.tag)
    }

    func shutdown() async {
        await provider?.shutdown()
        await bare?.shutdown()
        try? await client.shutdown()
    }

    private func checkNonce() async throws {
        guard let nonceURL else { return }
        let response = try await client.execute(HTTPClientRequest(url: nonceURL), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 4096)
        guard response.status == .ok, let nonce = (try? JSONValue.parse(body.readableBytesView))?["nonce"]?.stringValue,
            nonce.utf8.count == 43, body.readableBytes == 55
        else { throw BenchmarkFailure("GET /nonce answered \(response.status): \(String(buffer: body))") }
    }
}

/// `count` GETs of `url`, `concurrency` in flight, each answered 200 with a body.
func loadNonces(_ client: HTTPClient, url: String, count: Int, concurrency: Int) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for lane in 0..<concurrency {
            group.addTask {
                for _ in stride(from: lane, to: count, by: concurrency) {
                    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 4096)
                    guard response.status == .ok, body.readableBytes == 55 else {
                        throw BenchmarkFailure("GET /nonce answered \(response.status)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
}

/// Registers one sample again and again: the challenge is seeded and the row removed outside the measured part.
struct Registrar: Sendable {
    let provider: Provider
    let sample: DeviceSample
    let client: HTTPClient

    /// The request body and its hardware key tag (Android: fresh per iteration; Apple: the sample's keyId).
    func prepare(tag: String? = nil) async throws -> (body: Data, tag: String) {
        try await provider.server.benchmarkSeedChallenge(sample.challenge)
        let tag = tag ?? sample.fixedHardwareKeyTag ?? "bench-android-\(UUID().uuidString)"
        let body: JSONObject = [
            "challenge": .string(sample.challenge), "key_attestation": .string(sample.keyAttestation),
            "hardware_key_tag": .string(tag),
        ]
        return (body.serialized(), tag)
    }

    func viaService(_ prepared: (body: Data, tag: String)) async throws {
        try await provider.server.benchmarkRegister(body: prepared.body, accountID: provider.accountID)
        try await finish(prepared.tag)
    }

    /// `POST /wallet-instance` with the account's Bearer token; the answer's body, which must have `status`.
    @discardableResult
    func post(_ body: Data, expecting status: HTTPResponseStatus = .noContent) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: provider.server.baseURL + "/wallet-instance")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Authorization", value: "Bearer \(provider.session)")
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == status else {
            throw BenchmarkFailure("POST /wallet-instance answered \(response.status): \(String(buffer: answer))")
        }
        return answer
    }

    func register(_ body: Data) async throws {
        try await provider.server.benchmarkRegister(body: body, accountID: provider.accountID)
    }

    /// Removes the instance just registered (and fails if there was none: the registration must have stored it).
    func finish(_ tag: String) async throws {
        guard try await provider.server.benchmarkRemoveInstance(hardwareKeyTag: tag) else {
            throw BenchmarkFailure("no instance was stored for \(tag)")
        }
    }
}

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    let apple = must("Apple sample") { try DeviceSample.apple() }
    let android = must("Android sample") { try DeviceSample.android() }

    let teardown: @Sendable () async throws -> Void = { await World.shared.shutdown() }
    // Nonce issuance: one iteration = 1,024 requests; "requests/s" = 1,024 / the iteration's wall time.
    let requestsPerSecond = BenchmarkMetric.custom("requests/s", polarity: .prefersLarger, useScalingFactor: false)
    func nonceConfiguration(_ setup: @escaping @Sendable () async throws -> Void) -> Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, cpuMicroseconds, requestsPerSecond], timeUnits: .milliseconds, warmupIterations: 2,
            maxDuration: .seconds(4), maxIterations: 100, setup: setup, teardown: teardown)
    }
    let nonceLoad: @Sendable (Benchmark) async throws -> Void = { benchmark in
        guard let url = await World.shared.nonceURL else { throw BenchmarkFailure("no server") }
        let clock = ContinuousClock()
        let (start, cpu) = (clock.now, processCPUMicroseconds())
        try await loadNonces(World.shared.client, url: url, count: World.nonceRequests, concurrency: World.concurrency)
        let elapsed = (clock.now - start) / .seconds(1)
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
        benchmark.measurement(requestsPerSecond, Int((Double(World.nonceRequests) / elapsed).rounded()))
    }
    Benchmark(
        "nonce: provider GET /nonce (1024 req, 16 in flight)",
        configuration: nonceConfiguration { try await World.shared.startProviderNonce() }, closure: nonceLoad)
    Benchmark(
        "nonce: bare Vapor route (1024 req, 16 in flight)",
        configuration: nonceConfiguration { try await World.shared.startBareNonce(path: "/nonce") }, closure: nonceLoad)
    Benchmark(
        "nonce: bare Vapor async route (1024 req, 16 in flight)",
        configuration: nonceConfiguration { try await World.shared.startBareNonce(path: "/nonce-async") }, closure: nonceLoad)

    // Registration: one per iteration; throughput = registrations per second, one at a time.
    for (name, sample) in [("Apple App Attest", apple), ("Android key attestation", android)] {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .throughput, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 10,
            maxDuration: .seconds(4), maxIterations: 5_000,
            setup: { try await World.shared.startRegistration(sample) }, teardown: teardown)
        Benchmark("registration: \(name) (service)", configuration: configuration) { benchmark in
            guard let registrar = await World.shared.registrar else { throw BenchmarkFailure("no provider") }
            let prepared = try await registrar.prepare()
            let cpu = processCPUMicroseconds()
            benchmark.startMeasurement()
            try await registrar.register(prepared.body)
            benchmark.stopMeasurement()
            benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
            try await registrar.finish(prepared.tag)
        }
        Benchmark("registration: \(name) (HTTP)", configuration: configuration) { benchmark in
            guard let registrar = await World.shared.registrar else { throw BenchmarkFailure("no provider") }
            let prepared = try await registrar.prepare()
            let cpu = processCPUMicroseconds()
            benchmark.startMeasurement()
            try await registrar.post(prepared.body)
            benchmark.stopMeasurement()
            benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
            try await registrar.finish(prepared.tag)
        }

        // Between the two: the device attestation verifier alone (no HTTP, no database), for the breakdown.
        let cpuBound = Benchmark.Configuration(
            metrics: [.wallClock, .throughput, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 20,
            maxDuration: .seconds(3), maxIterations: 20_000)
        let verifyAttestation = sample.attestationVerifier()
        guard verifyAttestation() else { fatalError("WalletProviderBenchmarks: the \(name) sample does not verify") }
        Benchmark("verifier: \(name) (DeviceAttestation only)", configuration: cpuBound) { benchmark in
            let cpu = processCPUMicroseconds()
            for _ in benchmark.scaledIterations {
                guard verifyAttestation() else { fatalError("WalletProviderBenchmarks: the sample stopped verifying") }
            }
            benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
        }

        let checks = must("\(name) floor") { try SignatureCheck.all(for: sample) }
        Benchmark("floor: \(name) signatures (\(checks.map(\.label).joined(separator: ", ")))", configuration: cpuBound) {
            benchmark in
            let cpu = processCPUMicroseconds()
            for _ in benchmark.scaledIterations {
                for check in checks {
                    guard check.verify() else { fatalError("WalletProviderBenchmarks: a floor signature stopped verifying") }
                }
            }
            benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
        }
    }
}
