import Argon2
import Crypto
import DeviceAttestation
import Foundation
import TesseraTestSupport
import HolderKit
import OpenID4VP
import ServiceSupport
import Synchronization
import TesseraCore
import TesseraJOSE
import WalletInstanceKit
import WalletProvider
import X509
import TesseraHTTP
import HTTPTransport
import DeviceAttestationTesting
import TesseraTrustTesting
import WalletInstanceKitTesting

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A clock the tests move.
final class MovableClock: TesseraClock {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    func now() -> Date { instant.withLock { $0 } }
    func set(_ date: Date) { instant.withLock { $0 = date } }
}

enum ProviderDatabases {
    static var all: [String] {
        var names = ["sqlite"]
        if let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"], !url.isEmpty { names.append("postgres") }
        return names
    }
}

/// A Wallet Provider on loopback trusting a fresh test attestation authority, and wallets that use it.
struct ProviderFixture {
    static let application = AndroidApplication(
        packageName: "org.tessera.wallet.test", signingCertificateDigests: [Data(SHA256.hash(data: Data("test signer".utf8)))])
    static let appleApp = AppAttestAppID(teamID: "TESSERA001", bundleID: "org.tessera.wallet.test")

    let directory: URL
    let databasePath: String?
    let clock: MovableClock
    let authority: AndroidTestAttestationAuthority
    let appleAuthority: AppAttestTestAuthority
    /// The trust anchor of the provider's signing chain (what a relying party configures for its `x5c`).
    let signingRoot: Certificate
    /// The `kid` of everything the provider signs with that identity.
    let signingKeyID: String
    let server: WalletProviderServer
    let http: AsyncHTTPClientTransport
    /// Where `request` sends: the in-process server, or another provider process on the same database.
    var baseURL: String
    /// What `request` sends with instead of `http` (a load balancer in front of provider processes).
    var client: (any TesseraHTTP.HTTPClient)?

    /// - Parameter peerRoot: another test attestation root to trust for App Attest, Android key attestation and
    ///   integrity tokens (an independent peer's); integrity tokens are then checked under it.
    /// - Parameter configure: changes to the provider's configuration before it starts.
    init(
        database: String = "sqlite", trustTestRoot: Bool = true, peerRoot: Certificate? = nil, at start: Date = Date(),
        configure: (inout WalletProviderConfiguration) -> Void = { _ in }
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-provider-\(UUID().uuidString)")
        clock = MovableClock(start)
        authority = try AndroidTestAttestationAuthority.generate(
            commonName: "Provider Test Root", notBefore: start.addingTimeInterval(-86_400),
            notAfter: start.addingTimeInterval(365 * 86_400), random: nil)
        appleAuthority = try AppAttestTestAuthority.generate(
            commonName: "Provider Test App Attestation Root", notBefore: start.addingTimeInterval(-86_400),
            notAfter: start.addingTimeInterval(365 * 86_400), random: nil)
        let db: ServiceDatabase
        if database == "postgres", let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"] {
            db = try ServiceDatabase(url: url)
            databasePath = nil
        } else {
            let path = directory.appendingPathComponent("provider.sqlite").path
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            db = .sqlite(path: path)
            databasePath = path
        }
        var policy = AndroidAttestationPolicy(applications: [Self.application])
        if trustTestRoot { policy.trustedRootKeys.append(authority.rootPublicKeySPKI) }
        var appAttest = AppAttestPolicy(apps: [Self.appleApp])
        if trustTestRoot { appAttest.trustedRoots.append(appleAuthority.rootCertificate) }
        var integrityRoot = trustTestRoot ? authority.rootCertificate : nil
        if let peerRoot, let key = P256.Signing.PublicKey(peerRoot.publicKey) {
            appAttest.trustedRoots.append(peerRoot)
            policy.trustedRootKeys.append(key.derRepresentation)
            integrityRoot = peerRoot
        }
        let (identity, signingRoot) = try Self.signingIdentity(at: start)
        self.signingRoot = signingRoot
        signingKeyID = identity.kid
        var configuration = WalletProviderConfiguration(
            database: db, directory: directory, signingIdentity: identity,
            apps: .init(apple: [Self.appleApp], android: [Self.application]),
            appAttest: appAttest, android: policy, androidIntegrity: integrityRoot.map { LocalIntegrityTokenVerifier(root: $0) },
            clock: clock)
        configure(&configuration)
        // Small Argon2id parameters: the tests exercise the flow, not the cost (debug builds are slow).
        let parameters = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
        server = try await Self.startRetrying(configuration, parameters)
        http = AsyncHTTPClientTransport()
        baseURL = server.baseURL
    }

    /// A test chain for the provider's attestations: its leaf's identity and the root that anchors it.
    static func signingIdentity(at now: Date) throws -> (ProviderSigningIdentity, Certificate) {
        var generator = SystemRandomNumberGenerator()
        let (root, leaf) = try X5CTestPKI.issueChain(
            rootCommonName: "Provider Test Signing Root", leafCommonName: "Provider Test Signer", now: now, random: &generator)
        guard case .p256(let key) = leaf.privateKey else { throw FixtureError("the test signer is not P-256") }
        return (try ProviderSigningIdentity(privateKey: key, certificateChain: [try leaf.derEncoded()]), root.certificate)
    }

    /// Starts on the shared PostgreSQL go one at a time (`SharedPostgres`); a provider process another test starts on
    /// the same database can still collide with one of ours: retry once for that.
    private static func startRetrying(_ configuration: WalletProviderConfiguration, _ parameters: Argon2Parameters) async throws -> WalletProviderServer {
        guard case .postgres = configuration.database else { return try await startRetryingOnce(configuration, parameters) }
        return try await SharedPostgres.serialized { try await startRetryingOnce(configuration, parameters) }
    }

    private static func startRetryingOnce(_ configuration: WalletProviderConfiguration, _ parameters: Argon2Parameters) async throws -> WalletProviderServer {
        do {
            return try await WalletProviderServer.start(configuration, port: 0, passwordParameters: parameters)
        } catch {
            try await Task.sleep(for: .milliseconds(500))
            return try await WalletProviderServer.start(configuration, port: 0, passwordParameters: parameters)
        }
    }

    /// The same fixture (authority, clock, HTTP client) talking to another provider on the same database.
    func at(_ baseURL: String) -> ProviderFixture {
        var copy = self
        copy.baseURL = baseURL
        return copy
    }

    /// The same fixture sending through `client` to `front` (a `LoadBalancer`, or one of its pinned clients).
    func through(_ client: any TesseraHTTP.HTTPClient, front: String) -> ProviderFixture {
        var copy = at(front)
        copy.client = client
        return copy
    }

    func shutdown() async {
        await server.shutdown()
        try? await http.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A wallet with its own key store and instance file, using the test integrity service.
    func wallet(_ name: String = UUID().uuidString) -> WalletInstanceClient {
        let dir = directory.appendingPathComponent("wallet-\(name)")
        let integrity = TestDeviceIntegrityService(
            keys: FileKeyStore(directory: dir.appendingPathComponent("keys")), authority: authority,
            application: Self.application, clock: clock)
        return WalletInstanceClient(store: WalletInstanceStore(directory: dir), integrity: integrity, http: http, clock: clock)
    }

    /// A wallet on a simulated iOS device (App Attest format under the test App Attestation root).
    func iosWallet(_ name: String = UUID().uuidString) -> WalletInstanceClient {
        let dir = directory.appendingPathComponent("ios-wallet-\(name)")
        let integrity = TestAppAttestIntegrityService(
            keys: FileKeyStore(directory: dir.appendingPathComponent("keys")), authority: appleAuthority,
            app: Self.appleApp, clock: clock)
        return WalletInstanceClient(store: WalletInstanceStore(directory: dir), integrity: integrity, http: http, clock: clock)
    }

    // MARK: HTTP helpers

    struct Answer {
        let status: Int
        let headers: [(name: String, value: String)]
        let body: Data
        var json: JSONObject? { (try? JSONValue.parse(body))?.objectValue }
        var error: String? { json?["error"]?.stringValue }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    }

    func request(
        _ method: HTTPRequest.Method, _ path: String, json: JSONObject? = nil, body: Data? = nil,
        contentType: String? = nil, session: String? = nil, headers extra: [(name: String, value: String)] = []
    ) async throws -> Answer {
        guard let url = URL(string: baseURL + path) else { throw FixtureError("bad path \(path)") }
        var headers = extra
        if let contentType { headers.append(("Content-Type", contentType)) } else if json != nil { headers.append(("Content-Type", "application/json")) }
        if let session { headers.append(("Authorization", "Bearer \(session)")) }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body ?? json?.serialized())
        let response = try await (client ?? http).send(request)
        return Answer(status: response.status, headers: response.headers, body: response.body)
    }

    /// Signs up and logs in an account; returns the session token.
    func account(_ email: String = "user-\(UUID().uuidString.prefix(8))@example.org") async throws -> (session: String, totp: TOTP, email: String) {
        let password = "correct horse battery staple"
        let created = try await request(.post, "/api/accounts", json: ["email": .string(email), "password": .string(password)])
        guard created.status == 201, let secret = created.json?["totp_secret"]?.stringValue, let totp = TOTP(base32Secret: secret) else {
            throw FixtureError("sign-up failed: \(created.status) \(String(decoding: created.body, as: UTF8.self))")
        }
        let login = try await request(.post, "/api/login", json: [
            "email": .string(email), "password": .string(password), "totp": .string(totp.code(at: clock.now())),
        ])
        guard login.status == 200, let token = login.json?["session_token"]?.stringValue else {
            throw FixtureError("login failed: \(login.status) \(String(decoding: login.body, as: UTF8.self))")
        }
        return (token, totp, email)
    }

    func nonce() async throws -> String {
        let answer = try await request(.get, "/nonce")
        guard answer.status == 200, let nonce = answer.json?["nonce"]?.stringValue else { throw FixtureError("no nonce") }
        return nonce
    }

    /// Registration body for a fresh test-attested key bound to `challenge`.
    func registrationBody(challenge: String, wallet: String = UUID().uuidString) async throws -> (body: JSONObject, tag: String) {
        let dir = directory.appendingPathComponent("keys-\(wallet)")
        let integrity = TestDeviceIntegrityService(
            keys: FileKeyStore(directory: dir), authority: authority, application: Self.application, clock: clock)
        let key = try await integrity.createAttestedKey(challenge: challenge)
        return ([
            "challenge": .string(challenge), "key_attestation": .string(key.keyAttestation),
            "hardware_key_tag": .string(key.hardwareKeyTag),
        ], key.hardwareKeyTag)
    }
}

