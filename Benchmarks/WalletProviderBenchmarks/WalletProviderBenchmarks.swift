// Wallet Provider throughput (package-benchmark), each next to its floor measured in the same run.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target WalletProviderBenchmarks
//   (add --filter 'nonce.*', --filter '.*Android.*' or --filter '.*WIA.*' to run a subset)
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
// WIA issuance (service): the server-side work of one IT-Wallet 1.5 `wia-request+jwt` (issue 27) for an instance
//   registered in setup through the real registration with the test attestation authorities (DeviceAttestationTesting,
//   one fresh root trusted for App Attest, Android key attestation and integrity tokens), the provider's clock
//   moved 10 ms per iteration by setup (nothing expires within a run, and each WIA extends its status entry as under
//   a real clock): through `@_spi(Benchmarks)` `benchmarkWalletInstanceAttestation`, i.e.
//   `InstanceAttestationService.walletInstanceAttestation` for 1.5: the request parsed and proven (ES256 signature by
//   the cnf key, times, `iss`, the instance looked up (one SELECT), the hardware proof: iOS the App Attest assertion
//   split as hardware_signature / integrity_assertion verified with the registered key and counter; Android the DER
//   signature over client_data and the integrity token (LocalIntegrityTokenVerifier: its x5c to the test root and
//   its JWS), then one transaction (BEGIN IMMEDIATE, the nonce DELETE … RETURNING, the instance UPDATE … RETURNING
//   moving the counter, the instance's status list entry reused and its maintained_until moved on, COMMIT), then
//   the WIA signed with the
//   provider's x5c identity (ES256, header x5c and trust_chain). Not measured, per iteration: the nonce stored as
//   `GET /nonce` stores it and the device building its request (fresh cnf key, assertion or signature, token).
//   Setup checks that both paths answer a WIA with x5c and client_status and that a replay is refused.
// WIA issuance (HTTP): the same as `POST /wallet-instance-attestation` on loopback (`application/jwt` body).
// WIA piece: one SQL statement (the nonce INSERT of `GET /nonce`) through the same pool and SQLite file, for the
//   breakdown: issuance runs six (five of them without a pool checkout, inside the transaction).
// WIA floor: the signature operations one issuance needs, on keys parsed in advance: the request's ES256 verified
//   over its signing input by the cnf key, the hardware proof verified (P-256 by the registered key over the bytes
//   it signed: iOS SHA-256(authenticatorData ‖ SHA-256(client_data)), Android client_data), the WIA signed (ES256 by
//   the provider's key over a signing input of the WIA's size). Android also has a row with the test integrity
//   token's three P-256 verifications (x5c leaf, intermediate, token), which a deployment's Play Integrity check
//   replaces. Goal of issue 27: WIA issuance/s >= 0.7 x floor/s, same run.
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
        try WIADevice.check(wia)
        let replayed = try? await provider.server.benchmarkWalletInstanceAttestation(assertion: first)
        guard replayed == nil else { throw BenchmarkFailure("a replayed wia-request+jwt was accepted") }
        let second = try await device.prepare()
        try WIADevice.check(try await device.post(second, client: client))
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

// MARK: - Wallet Instance Attestation (1.5)

/// The WIA provider's clock: set by setup only, 10 ms further per iteration, so each WIA moves its status entry's
/// maintained_until as under a real clock, and nothing expires within a run (requests, tokens, nonces).
final class SteppedClock: TesseraClock {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    func now() -> Date { instant.withLock { $0 } }
    func step() { instant.withLock { $0 = $0.addingTimeInterval(0.01) } }
}

/// A device registered with the test attestation authorities that builds 1.5 `wia-request+jwt` as the tests'
/// AttestationDevice (and the 1.5 text) does: `iss` = the cnf key's thumbprint, `client_data` =
/// `{"nonce", "jwk_thumbprint"}`, iOS with its App Attest assertion split into `hardware_signature` (the DER
/// signature) and `integrity_assertion` (the authenticator data), Android with a DER ECDSA signature over
/// `client_data` and an integrity token whose `requestHash` is its SHA-256.
final class WIADevice: Sendable {
    enum Platform: String, Sendable { case ios, android }
    static let application = AndroidApplication(
        packageName: "org.tessera.wallet.bench", signingCertificateDigests: [Data(SHA256.hash(data: Data("bench signer".utf8)))])
    static let appleApp = AppAttestAppID(teamID: "TESSERA001", bundleID: "org.tessera.wallet.bench")

    let platform: Platform
    let provider: Provider
    let authority: AndroidTestAttestationAuthority
    let now: Date
    let clock: SteppedClock
    /// The registered hardware key (App Attest key / Android Keystore key).
    let key: P256.Signing.PrivateKey
    let hardwareKeyTag: String
    /// Android: the integrity token signer (valid an hour around `now`).
    let integritySigner: (key: P256.Signing.PrivateKey, chain: [Data])
    private let counter = Mutex<UInt32>(0)

    private init(
        platform: Platform, provider: Provider, authority: AndroidTestAttestationAuthority, now: Date, clock: SteppedClock,
        key: P256.Signing.PrivateKey, hardwareKeyTag: String
    ) throws {
        (self.platform, self.provider, self.authority, self.now, self.clock) = (platform, provider, authority, now, clock)
        (self.key, self.hardwareKeyTag) = (key, hardwareKeyTag)
        integritySigner = try authority.integritySigner(at: now)
    }

    /// Registers a fresh hardware key through the provider's registration path (challenge seeded as an issued
    /// nonce, key attestation by the test authority).
    static func register(
        _ platform: Platform, at provider: Provider, authority: AndroidTestAttestationAuthority, now: Date, clock: SteppedClock
    ) async throws -> WIADevice {
        let challenge = Base64URL.encode(SystemRandomSource().bytes(32))
        try await provider.server.benchmarkSeedChallenge(challenge)
        let key = P256.Signing.PrivateKey()
        let attestation: String, tag: String
        switch platform {
        case .ios:
            let attested = try AppAttestTestAuthority(sharing: authority).attest(
                publicKey: key.publicKey, app: appleApp, environment: .production,
                clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), at: now)
            attestation = attested.attestationObject.base64EncodedString()
            tag = Base64URL.encode(attested.keyID)
        case .android:
            let chain = try authority.attest(publicKey: key.publicKey, challenge: Data(challenge.utf8), application: application, at: now)
            attestation = Data(chain.map { $0.base64EncodedString() }.joined(separator: ",").utf8).base64EncodedString()
            tag = "bench-android-\(UUID().uuidString)"
        }
        let body: JSONObject = [
            "challenge": .string(challenge), "key_attestation": .string(attestation), "hardware_key_tag": .string(tag),
        ]
        try await provider.server.benchmarkRegister(body: body.serialized(), accountID: provider.accountID)
        return try WIADevice(
            platform: platform, provider: provider, authority: authority, now: now, clock: clock, key: key, hardwareKeyTag: tag)
    }

    /// Setup of one iteration: the clock 10 ms on, a nonce stored as `GET /nonce` stores it, and a request for it
    /// bound to a fresh cnf key (its `iat` the start instant: valid for the hour after it).
    func prepare() async throws -> String {
        clock.step()
        let nonce = Base64URL.encode(SystemRandomSource().bytes(32))
        try await provider.server.benchmarkSeedChallenge(nonce)
        return try request(nonce: nonce).jwt
    }

    /// A `wia-request+jwt` for `nonce`, and what the floor needs of it: the cnf key, the bytes the hardware key
    /// signed and that signature.
    func request(nonce: String) throws -> (jwt: String, cnf: P256.Signing.PublicKey, signedMessage: Data, hardwareSignature: P256.Signing.ECDSASignature) {
        let cnf = P256.Signing.PrivateKey()
        let jwk = JWK(publicKey: cnf.publicKey)
        let thumbprint = jwk.thumbprintBase64URL()
        let clientData = (["nonce": .string(nonce), "jwk_thumbprint": .string(thumbprint)] as JSONObject).serialized()
        let signature: Data, integrity: String, signedMessage: Data
        switch platform {
        case .ios:
            let next = counter.withLock { value in
                value += 1
                return value
            }
            let parts = try AppAttestAssertionObject(
                try AppAttestTestAuthority.assertion(key: key, app: Self.appleApp, clientData: clientData, counter: next))
            signature = parts.signature
            integrity = parts.authenticatorData.base64EncodedString()
            signedMessage = AppAttestTestAuthority.assertionNonce(authenticatorData: parts.authenticatorData, clientData: clientData)
        case .android:
            signature = try key.signature(for: clientData).derRepresentation
            integrity = try integrityToken(over: clientData)
            signedMessage = clientData
        }
        let iat = Int64(now.timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(thumbprint), "nonce": .string(nonce), "hardware_key_tag": .string(hardwareKeyTag),
            "cnf": ["jwk": .object(jwk.with(kid: thumbprint).jsonObject)],
            "platform": .string(platform == .ios ? "iOS" : "android"),
            "wallet_solution_id": "tessera", "wallet_solution_version": "1.5.0",
            "iat": .integer(iat), "exp": .integer(iat + 3600),
            "hardware_signature": .string(signature.base64EncodedString()), "integrity_assertion": .string(integrity),
        ]
        let header: JSONObject = ["typ": "wia-request+jwt", "kid": .string(thumbprint)]
        let jwt = try CompactJWS.sign(header: header, claims: claims, key: .es256(cnf)).compact
        return (jwt, cnf.publicKey, signedMessage, try P256.Signing.ECDSASignature(derRepresentation: signature))
    }

    /// A Play-Integrity-shaped token under the test authority, `requestHash` = hex SHA-256 of `data`.
    private func integrityToken(over data: Data) throws -> String {
        let hash = Data(SHA256.hash(data: data)).map { String(format: "%02x", $0) }.joined()
        let package = Self.application.packageName
        let payload: JSONObject = [
            "requestDetails": [
                "requestPackageName": .string(package), "requestHash": .string(hash),
                "timestampMillis": .string(String(Int64(now.timeIntervalSince1970 * 1000))),
            ],
            "appIntegrity": ["appRecognitionVerdict": "PLAY_RECOGNIZED", "packageName": .string(package)],
            "deviceIntegrity": ["deviceRecognitionVerdict": ["MEETS_DEVICE_INTEGRITY"]],
        ]
        let header: JSONObject = ["x5c": .array(integritySigner.chain.map { .string($0.base64EncodedString()) })]
        return try CompactJWS.sign(header: header, claims: payload, key: .es256(integritySigner.key)).compact
    }

    /// `POST /wallet-instance-attestation` with the request as `application/jwt`; the WIA answered.
    func post(_ jwt: String, client: HTTPClient) async throws -> String {
        var request = HTTPClientRequest(url: provider.server.baseURL + "/wallet-instance-attestation")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/jwt")
        request.body = .bytes(ByteBuffer(string: jwt))
        let response = try await client.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 64 * 1024)
        guard response.status == .ok, let wia = (try? JSONValue.parse(answer.readableBytesView))?["wallet_instance_attestation"]?.stringValue else {
            throw BenchmarkFailure("POST /wallet-instance-attestation answered \(response.status): \(String(buffer: answer))")
        }
        return wia
    }

    /// A 1.5 WIA: `oauth-client-attestation+jwt` with `x5c`, a `client_status` entry and no `iss`.
    static func check(_ wia: String) throws {
        let jws = try CompactJWS(parsing: wia)
        let claims = try jws.payloadJSON()
        guard jws.type == "oauth-client-attestation+jwt", jws.header["x5c"]?.arrayValue?.isEmpty == false,
            claims["client_status"]?["status"]?["status_list"]?["idx"] != nil, claims["iss"] == nil
        else { throw BenchmarkFailure("not a 1.5 WIA: \(jws.header) \(claims)") }
    }
}

/// The signature operations one WIA issuance needs, on keys parsed in advance: the request JWS verified (ES256 by
/// the cnf key over its signing input), the hardware proof verified (ECDSA P-256 by the registered key over the
/// bytes it signed), the WIA signed (ES256 by the provider's key over a signing input of the WIA's size).
/// `integrity`: Android's test integrity token as `LocalIntegrityTokenVerifier` checks it besides (its x5c leaf
/// by the intermediate, the intermediate by the root, the token by the leaf).
struct WIAFloor: Sendable {
    let requestInput: Data
    let requestSignature: P256.Signing.ECDSASignature
    let cnf: P256.Signing.PublicKey
    let hardwareMessage: Data
    let hardwareSignature: P256.Signing.ECDSASignature
    let hardwareKey: P256.Signing.PublicKey
    let wiaInput: Data
    let providerKey: P256.Signing.PrivateKey
    let integrity: [SignatureCheck]
    let integrityToken: (input: Data, signature: P256.Signing.ECDSASignature, key: P256.Signing.PublicKey)?

    init(device: WIADevice, integrity withIntegrity: Bool) async throws {
        let built = try device.request(nonce: Base64URL.encode(SystemRandomSource().bytes(32)))
        let jws = try CompactJWS(parsing: built.jwt)
        requestInput = Data(jws.signingInput.utf8)
        requestSignature = try P256.Signing.ECDSASignature(rawRepresentation: jws.signature)
        cnf = built.cnf
        hardwareMessage = built.signedMessage
        hardwareSignature = built.hardwareSignature
        hardwareKey = device.key.publicKey
        // A WIA's signing input, as the service issued it in setup.
        let issued = try await device.provider.server.benchmarkWalletInstanceAttestation(assertion: try await device.prepare())
        wiaInput = Data(try CompactJWS(parsing: issued).signingInput.utf8)
        providerKey = device.provider.signingKey
        if withIntegrity, let token = (try CompactJWS(parsing: built.jwt).payloadJSON())["integrity_assertion"]?.stringValue {
            let tokenJWS = try CompactJWS(parsing: token)
            var chain = try device.integritySigner.chain.map { try Certificate(derEncoded: Array($0)) }
            chain.append(device.authority.rootCertificate)
            integrity = try zip(chain, chain.dropFirst()).map { try SignatureCheck($0, issuer: $1) }
            integrityToken = (Data(tokenJWS.signingInput.utf8), try P256.Signing.ECDSASignature(rawRepresentation: tokenJWS.signature),
                device.integritySigner.key.publicKey)
        } else {
            (integrity, integrityToken) = ([], nil)
        }
        guard run() else { throw BenchmarkFailure("a WIA floor signature does not verify") }
    }

    /// One issuance's signatures; false when a verification fails.
    func run() -> Bool {
        guard cnf.isValidSignature(requestSignature, for: requestInput),
            hardwareKey.isValidSignature(hardwareSignature, for: hardwareMessage),
            integrity.allSatisfy({ $0.verify() })
        else { return false }
        if let token = integrityToken, !token.key.isValidSignature(token.signature, for: token.input) { return false }
        return (try? providerKey.signature(for: wiaInput)) != nil
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

    // WIA (1.5): one issuance per iteration for a registered instance; the nonce stored and the request built (device
    // side) per iteration outside the measured part. Next to it, its signature floor in the same run.
    for (name, platform) in [("iOS", WIADevice.Platform.ios), ("Android", .android)] {
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, .throughput, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 10,
            maxDuration: .seconds(4), maxIterations: 5_000,
            setup: { try await World.shared.startWIA(platform) }, teardown: teardown)
        Benchmark("WIA issuance: \(name) (service)", configuration: configuration) { benchmark in
            guard let device = await World.shared.wiaDevice else { throw BenchmarkFailure("no provider") }
            let request = try await device.prepare()
            let cpu = processCPUMicroseconds()
            benchmark.startMeasurement()
            let wia = try await device.provider.server.benchmarkWalletInstanceAttestation(assertion: request)
            benchmark.stopMeasurement()
            benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
            blackHole(wia)
        }
        Benchmark("WIA issuance: \(name) (HTTP)", configuration: configuration) { benchmark in
            guard let device = await World.shared.wiaDevice else { throw BenchmarkFailure("no provider") }
            let request = try await device.prepare()
            let cpu = processCPUMicroseconds()
            benchmark.startMeasurement()
            let wia = try await device.post(request, client: World.shared.client)
            benchmark.stopMeasurement()
            benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
            blackHole(wia)
        }
        // Where issuance time goes beyond the floor: one SQL statement of the kind it runs six of (instance SELECT,
        // BEGIN IMMEDIATE, nonce DELETE … RETURNING, instance UPDATE … RETURNING, status entry UPDATE … RETURNING,
        // COMMIT), here the nonce INSERT that `GET /nonce` runs, through the same pool, thread pool and SQLite file.
        if platform == .ios {
            Benchmark("WIA piece: one SQL statement (nonce INSERT, service)", configuration: configuration) { benchmark in
                guard let device = await World.shared.wiaDevice else { throw BenchmarkFailure("no provider") }
                let nonce = Base64URL.encode(SystemRandomSource().bytes(32))
                let cpu = processCPUMicroseconds()
                benchmark.startMeasurement()
                try await device.provider.server.benchmarkSeedChallenge(nonce)
                benchmark.stopMeasurement()
                benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
            }
        }
        let floors: [(label: String, integrity: Bool)] =
            platform == .ios
            ? [("WIA floor: iOS signatures (ES256 verify, App Attest P-256 verify, ES256 sign)", false)]
            : [
                ("WIA floor: Android signatures (ES256 verify, P-256 verify, ES256 sign)", false),
                ("WIA floor: Android signatures + test integrity token (x5c 2x P-256, ES256 verify)", true),
            ]
        for floor in floors {
            let cpuBound = Benchmark.Configuration(
                metrics: [.wallClock, .throughput, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 20,
                maxDuration: .seconds(3), maxIterations: 20_000,
                setup: { try await World.shared.startWIA(platform) }, teardown: teardown)
            Benchmark(floor.label, configuration: cpuBound) { benchmark in
                let signatures = try await World.shared.wiaFloor(integrity: floor.integrity)
                let cpu = processCPUMicroseconds()
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    guard signatures.run() else { fatalError("WalletProviderBenchmarks: a WIA floor signature stopped verifying") }
                }
                benchmark.stopMeasurement()
                benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
            }
        }
    }
}
