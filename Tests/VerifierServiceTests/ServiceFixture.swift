import Crypto
import Foundation
import TesseraTestSupport
import HolderKit
import MDoc
import OpenID4VP
import SDJWT
import Synchronization
import TesseraCore
import TesseraJOSE
import TesseraTrust
import VerifierService
import X509
import TesseraHTTP
import HTTPTransport
import TesseraTrustTesting
import TokenStatusList

/// A clock the tests move forward (transaction expiry).
final class MovableClock: TesseraClock {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    func now() -> Date { instant.withLock { $0 } }
    func advance(by seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// The databases the service is tested on: SQLite always, PostgreSQL when the test script started one
/// (`TESSERA_TEST_POSTGRES_URL`).
enum TestDatabases {
    static var all: [String] {
        var names = ["sqlite"]
        if let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"], !url.isEmpty { names.append("postgres") }
        return names
    }

    static func configuration(_ name: String) throws -> VerifierServiceConfiguration.Database {
        if name == "postgres", let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"] {
            return try .init(url: url)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-verifier-\(UUID().uuidString).sqlite").path
        return .sqlite(path: path)
    }
}

/// A PID issuer (x5c under its own root, with a Token Status List), a verifier identity under another root,
/// and a wallet key; the verifier service running on loopback over them.
struct ServiceFixture {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let statusURI = "https://issuer.example.com/status/1"

    let clock = MovableClock(Self.start)
    let issuerRoot: Certificate
    let issuerKey: P256.Signing.PrivateKey
    let issuerChain: [Data]
    let verifierRoot: Certificate
    let holderKey: P256.Signing.PrivateKey
    let database: VerifierServiceConfiguration.Database
    let configuration: VerifierServiceConfiguration
    let server: VerifierServer
    let http: AsyncHTTPClientTransport

    /// - Parameter revoked: status list indices marked invalid.
    init(database: String, revoked: Set<Int> = [], lifetime: TimeInterval = 300) async throws {
        var random = SeededRandomSource(seed: 6).generator
        let validity = (Self.start.addingTimeInterval(-86_400), Self.start.addingTimeInterval(365 * 86_400))
        let issuerCA = try X5CTestPKI.issueRoot(.init(commonName: "Test PID Root", notBefore: validity.0, notAfter: validity.1), random: &random)
        let issuer = try X5CTestPKI.issue(.init(commonName: "Test PID Issuer", notBefore: validity.0, notAfter: validity.1), by: issuerCA, random: &random)
        let verifierCA = try X5CTestPKI.issueRoot(.init(commonName: "Test Verifier Root", notBefore: validity.0, notAfter: validity.1), random: &random)
        let verifier = try X5CTestPKI.issue(.init(commonName: "Test Verifier", notBefore: validity.0, notAfter: validity.1), by: verifierCA, random: &random)
        guard case .p256(let issuerKey) = issuer.privateKey, case .p256(let verifierKey) = verifier.privateKey else {
            throw FixtureError("test keys are not P-256")
        }
        issuerRoot = issuerCA.certificate
        self.issuerKey = issuerKey
        issuerChain = [try issuer.derEncoded()]
        verifierRoot = verifierCA.certificate
        holderKey = try P256.Signing.PrivateKey(rawRepresentation: SeededRandomSource(seed: 7).bytes(32))
        var list = try StatusList(bits: 1, count: 16)
        for index in revoked { try list.setStatus(StatusList.invalid, at: index) }
        let token = try StatusListToken.issue(
            list, subject: Self.statusURI, issuedAt: Self.start, key: .es256(issuerKey), x5c: issuerChain)
        self.database = try TestDatabases.configuration(database)
        configuration = VerifierServiceConfiguration(
            identity: try VerifierIdentity(signingKey: verifierKey, certificateChain: [try verifier.derEncoded()]),
            trust: IssuerTrust(
                iacaRoots: [issuerRoot], sdJWTAnchors: [issuerRoot],
                statusListFetcher: InMemoryStatusListFetcher(tokens: [Self.statusURI: token.jwt.compact])),
            database: self.database, transactionLifetime: lifetime, clock: clock,
            random: SeededRandomSource(seed: UInt64.random(in: 1...UInt64.max)))
        server = try await Self.start(configuration)
        http = AsyncHTTPClientTransport()
    }

    func shutdown() async {
        try? await http.shutdown()
        await server.shutdown()
    }

    /// A second instance of the same service on the same database, as behind one load balancer: wallets know it
    /// by `server`'s base URL (so Request Objects, response URIs and redirects name that one), it listens on a port
    /// of its own (`port`) and draws its own random values.
    func secondInstance() async throws -> VerifierServer {
        var other = configuration
        other.publicBaseURL = server.baseURL
        other.random = SeededRandomSource(seed: UInt64.random(in: 1...UInt64.max))
        return try await Self.start(other)
    }

    /// Starts on the shared test PostgreSQL go one at a time (`SharedPostgres`: concurrent first migrations collide).
    private static func start(_ configuration: VerifierServiceConfiguration) async throws -> VerifierServer {
        guard case .postgres = configuration.database else {
            return try await VerifierServer.start(configuration, host: "127.0.0.1", port: 0)
        }
        return try await SharedPostgres.serialized { try await VerifierServer.start(configuration, host: "127.0.0.1", port: 0) }
    }

    /// A PID SD-JWT VC bound to `holderKey`, with status list index `statusIndex`.
    func pid(statusIndex: Int = 3) throws -> String {
        let issuer = try SDJWTIssuer(signingKey: .es256(issuerKey), clock: FixedClock(Self.start.addingTimeInterval(-3600)), random: SeededRandomSource(seed: 8))
        let claims: JSONObject = ["given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12", "age_equal_or_over": ["18": true]]
        let disclosable = try ["given_name", "family_name", "birthdate", "age_equal_or_over"].map { try ClaimsPathPointer(keys: $0) }
            + [try ClaimsPathPointer(keys: "age_equal_or_over", "18")]
        return try issuer.issueVC(
            vct: "urn:eudi:pid:1", claims: claims, disclosable: disclosable, holderKey: JWSSigningKey.es256(holderKey).publicJWK,
            issuer: "https://issuer.example.com", validity: 86_400 * 30,
            status: StatusListReference(index: statusIndex, uri: Self.statusURI).claim, x5c: issuerChain
        ).compact
    }

    func walletConfig() -> WalletConfiguration {
        WalletConfiguration(httpClient: http, clock: clock, verifierTrustAnchors: [verifierRoot], allowsLoopbackHTTP: true)
    }

    func credentials(statusIndex: Int = 3) throws -> [WalletCredential] {
        [.sdJWTVC(try SDJWTVCCredential(id: "pid", compactSDJWT: try pid(statusIndex: statusIndex), holderKey: SoftwareDeviceKey(holderKey)))]
    }

    // MARK: HTTP

    func call(_ method: HTTPRequest.Method, _ path: String, json: JSONObject? = nil, form: String? = nil) async throws
        -> (status: Int, body: JSONObject?)
    {
        try await Self.call(http, method, path.hasPrefix("http") ? path : server.baseURL + path, json: json, form: form)
    }

    /// `method` on `url` through `client` with a JSON or form body; the answer's status and JSON object.
    static func call(
        _ client: any HTTPClient, _ method: HTTPRequest.Method, _ url: String, json: JSONObject? = nil, form: String? = nil
    ) async throws -> (status: Int, body: JSONObject?) {
        var request = HTTPRequest(method: method, url: try require_url(url))
        if let json {
            request.headers = [("Content-Type", "application/json")]
            request.body = json.serialized()
        } else if let form {
            request.headers = [("Content-Type", "application/x-www-form-urlencoded")]
            request.body = Data(form.utf8)
        }
        let response = try await client.send(request)
        return (response.status, (try? JSONValue.parse(response.body))?.objectValue)
    }

    /// `POST /api/transactions` → (transaction id, authorization request URI).
    func createTransaction(_ body: JSONObject) async throws -> (id: String, uri: String) {
        let (status, answer) = try await call(.post, "/api/transactions", json: body)
        guard status == 201, let id = answer?["transaction_id"]?.stringValue, let uri = answer?["authorization_request_uri"]?.stringValue else {
            throw FixtureError("creating a transaction answered \(status) \(String(describing: answer))")
        }
        return (id, uri)
    }

    func status(_ id: String, code: String? = nil) async throws -> (status: Int, body: JSONObject?) {
        try await call(.get, "/api/transactions/\(id)" + (code.map { "?response_code=\($0)" } ?? ""))
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A URL from test text.
func require_url(_ text: String) throws -> URL {
    guard let url = URL(string: text) else { throw FixtureError("not a URL: \(text)") }
    return url
}
