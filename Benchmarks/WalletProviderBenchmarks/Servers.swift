// The servers the benchmarks start in this process (the Wallet Provider, a bare Vapor route), the World that holds
// them between iterations, and the registrations the benchmarks replay.

import Argon2
import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Crypto
import DeviceAttestation
import DeviceAttestationTesting
import Foundation
import Synchronization
import TesseraCBOR
import TesseraCore
import TesseraJOSE
import TesseraTrust
import TesseraTrustTesting
import Vapor
@_spi(Benchmarks) import WalletProvider
import X509
import _CryptoExtras

// MARK: - Servers

/// A Wallet Provider on loopback with its own SQLite file, an account and its Bearer token.
struct Provider: Sendable {
    let server: WalletProviderServer
    let directory: URL
    let accountID: String
    let session: String
    /// The key of the provider's x5c signing identity (the WIA floor signs with it).
    let signingKey: P256.Signing.PrivateKey

    /// `clock`: the sample's validation_time for registrations (every certificate is checked at that instant).
    /// `testRoot`: a test attestation authority's root to trust for App Attest, Android key attestation and
    /// integrity tokens (the WIA benchmarks' devices).
    static func start(
        clock: any TesseraClock, apple: [AppAttestAppID] = [], android: [AndroidApplication] = [], testRoot: AndroidTestAttestationAuthority? = nil
    ) async throws -> Provider {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-wp-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let (_, leaf) = try X5CTestPKI.issueChain(
            rootCommonName: "Bench Signing Root", leafCommonName: "Bench Signer", now: Date(), random: &generator)
        guard case .p256(let key) = leaf.privateKey else { throw TrustError.malformedCertificate(certificate: 0, reason: "the bench signer is not P-256") }
        var appAttest = AppAttestPolicy(apps: apple, allowedEnvironments: [.production, .development])
        var androidPolicy = AndroidAttestationPolicy(applications: android)
        if let testRoot {
            appAttest.trustedRoots.append(testRoot.rootCertificate)
            androidPolicy.trustedRootKeys.append(testRoot.rootPublicKeySPKI)
        }
        let configuration = WalletProviderConfiguration(
            database: .sqlite(path: directory.appendingPathComponent("provider.sqlite").path), directory: directory,
            signingIdentity: try ProviderSigningIdentity(privateKey: key, certificateChain: [try leaf.derEncoded()]),
            apps: .init(apple: apple, android: android), appAttest: appAttest, android: androidPolicy,
            androidIntegrity: testRoot.map { LocalIntegrityTokenVerifier(root: $0.rootCertificate) }, clock: clock)
        // Accounts are not what is measured: small Argon2id parameters keep the start short.
        let server = try await WalletProviderServer.start(
            configuration, port: 0, passwordParameters: Argon2Parameters(memoryKiB: 256, iterations: 1, parallelism: 1))
        let account = try await server.benchmarkAccount(email: "bench@example.org", password: "correct horse battery staple")
        return Provider(
            server: server, directory: directory, accountID: account.accountID, session: account.sessionToken, signingKey: key)
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
    private(set) var wiaDevice: WIADevice?
    private var wiaFloorMade: WIAFloor?
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

    /// A provider trusting a fresh test attestation root (FixedClock at now, so nothing expires) and one device of
    /// `platform` registered at it through the real registration; its WIA issuance checked before anything is timed.
    func startWIA(_ platform: WIADevice.Platform) async throws {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let authority = try AndroidTestAttestationAuthority.generate(
            commonName: "Bench Attestation Root", notBefore: now.addingTimeInterval(-86_400),
            notAfter: now.addingTimeInterval(365 * 86_400), random: nil)
        let clock = SteppedClock(now)
        let provider = try await Provider.start(
            clock: clock, apple: [WIADevice.appleApp], android: [WIADevice.application], testRoot: authority)
        self.provider = provider
        let device = try await WIADevice.register(platform, at: provider, authority: authority, now: now, clock: clock)
        wiaDevice = device
        // Both paths answer a WIA with x5c and client_status; a request whose nonce was consumed is refused.
        let first = try await device.prepare()
        let wia = try await provider.server.benchmarkWalletInstanceAttestation(assertion: first)
        try WIAKey.check(wia)
        let replayed = try? await provider.server.benchmarkWalletInstanceAttestation(assertion: first)
        guard replayed == nil else { throw BenchmarkFailure("a replayed wia-request+jwt was accepted") }
        let second = try await device.prepare()
        try WIAKey.check(try await device.post(second, client: client))
    }

    /// The signature floor of the running device's issuance, made once.
    func wiaFloor(integrity: Bool) async throws -> WIAFloor {
        if let floor = wiaFloorMade { return floor }
        guard let device = wiaDevice else { throw BenchmarkFailure("no provider") }
        let floor = try await WIAFloor(device: device, integrity: integrity)
        wiaFloorMade = floor
        return floor
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
