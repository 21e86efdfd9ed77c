// Verifier service throughput for direct_post.jwt responses carrying an SD-JWT VC with KB-JWT (package-benchmark),
// next to the per-response crypto floor measured in the same run.
//
//   cd Benchmarks && swift package benchmark --target VerifierServiceBenchmarks
//
// service batch 64 x8: one iteration posts 64 prepared encrypted responses (each for its own transaction) to the
//   in-process service on loopback (SQLite file) from 8 concurrent clients; the service decrypts (ECDH-ES +
//   A256GCM), verifies the SD-JWT VC (issuer ES256 via x5c to a root, Disclosures, KB-JWT ES256, aud, nonce,
//   sd_hash), checks DCQL, consumes the state and stores the result. Throughput = 64 / wall time.
// service single response: one response per iteration, no concurrency (latency p50/p99 without load).
// floor: per response, P-256 ECDH + SHA-256 (Concat KDF) + AES-GCM open of the same ciphertext size + two P-256
//   ECDSA verifies of the same signing inputs (issuer JWT, KB-JWT).

import Benchmark
import Crypto
import Foundation
import HolderKit
import MDoc
import OpenID4VP
import SDJWT
import TesseraCore
import TesseraJOSE
import TesseraTrust
import VerifierService

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("VerifierServiceBenchmarks: \(label): \(error)") }
}

/// The service, the wallet side and the prepared responses, made once in `setup`.
actor World {
    static let shared = World()
    var server: VerifierServer?
    var http: AsyncHTTPClientTransport?
    var walletConfig: WalletConfiguration?
    var credentials: [WalletCredential] = []

    func start() async throws {
        guard server == nil else { return }
        var random = SeededRandomSource(seed: 61).generator
        let now = Date()
        let validity = (now.addingTimeInterval(-3600), now.addingTimeInterval(86_400))
        let issuerCA = try X5CTestPKI.issueRoot(.init(commonName: "Bench PID Root", notBefore: validity.0, notAfter: validity.1), random: &random)
        let issuer = try X5CTestPKI.issue(.init(commonName: "Bench PID Issuer", notBefore: validity.0, notAfter: validity.1), by: issuerCA, random: &random)
        let verifierCA = try X5CTestPKI.issueRoot(.init(commonName: "Bench Verifier Root", notBefore: validity.0, notAfter: validity.1), random: &random)
        let verifier = try X5CTestPKI.issue(.init(commonName: "Bench Verifier", notBefore: validity.0, notAfter: validity.1), by: verifierCA, random: &random)
        guard case .p256(let issuerKey) = issuer.privateKey, case .p256(let verifierKey) = verifier.privateKey else { throw CancellationError() }
        let holderKey = P256.Signing.PrivateKey()
        let database = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-bench-\(UUID().uuidString).sqlite").path
        let configuration = VerifierServiceConfiguration(
            identity: try VerifierIdentity(signingKey: verifierKey, certificateChain: [try verifier.derEncoded()]),
            trust: IssuerTrust(iacaRoots: [issuerCA.certificate], sdJWTAnchors: [issuerCA.certificate]),
            database: .sqlite(path: database), transactionLifetime: 3600)
        server = try await VerifierServer.start(configuration, host: "127.0.0.1", port: 0)
        let transport = AsyncHTTPClientTransport()
        http = transport
        walletConfig = WalletConfiguration(httpClient: transport, verifierTrustAnchors: [verifierCA.certificate], allowsLoopbackHTTP: true)
        let claims: JSONObject = ["given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12"]
        let paths = try ["given_name", "family_name", "birthdate"].map { try ClaimsPathPointer(keys: $0) }
        let sdJWT = try SDJWTIssuer(signingKey: .es256(issuerKey), clock: SystemClock(), random: SystemRandomSource()).issueVC(
            vct: "urn:eudi:pid:1", claims: claims, disclosable: paths, holderKey: JWSSigningKey.es256(holderKey).publicJWK,
            issuer: "https://issuer.example.com", validity: 86_400, x5c: [try issuer.derEncoded()])
        credentials = [.sdJWTVC(try SDJWTVCCredential(id: "pid", compactSDJWT: sdJWT.compact, holderKey: SoftwareDeviceKey(holderKey)))]
    }

    /// `count` transactions, each with its encrypted response ready to post: (response URI, form body).
    func prepare(_ count: Int) async throws -> [(URL, Data)] {
        guard let server, let http, let walletConfig else { throw CancellationError() }
        var prepared: [(URL, Data)] = []
        for _ in 0..<count {
            guard let url = URL(string: server.baseURL + "/api/transactions") else { throw CancellationError() }
            let created = try await http.send(OpenID4VPHTTPRequest(
                method: .post, url: url, headers: [("Content-Type", "application/json")], body: Data(#"{"template":"pid_basic"}"#.utf8)))
            guard let link = (try? JSONValue.parse(created.body))?["authorization_request_uri"]?.stringValue else { throw CancellationError() }
            let request = try await resolveAuthorizationRequest(try await parseAuthorizationRequest(requestUri: link, walletConfig: walletConfig), walletConfig: walletConfig)
            let response = try await createAuthorizationResponse(
                request: request, selectedCredentials: try request.match(credentials).preferredSelection(), walletConfig: walletConfig)
            guard let encryption = request.destination.encryption, let target = URL(string: request.destination.uri) else { throw CancellationError() }
            let jwe = try CompactJWE.encrypt(response.parameters.serialized(), to: encryption.key, enc: encryption.enc, kid: encryption.key.kid, random: SystemRandomSource())
            prepared.append((target, Data(FormURLEncoding.encode([("response", jwe.compact)]).utf8)))
        }
        return prepared
    }

    func post(_ items: [(URL, Data)], concurrency: Int) async throws {
        guard let http else { throw CancellationError() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<concurrency {
                group.addTask {
                    for index in stride(from: lane, to: items.count, by: concurrency) {
                        let answer = try await http.send(OpenID4VPHTTPRequest(
                            method: .post, url: items[index].0,
                            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: items[index].1))
                        guard answer.status == 200 else { fatalError("VerifierServiceBenchmarks: response refused: \(String(decoding: answer.body, as: UTF8.self))") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .milliseconds, warmupIterations: 2, maxDuration: .seconds(20),
        maxIterations: 200, setup: { try await World.shared.start() })

    Benchmark("service batch 64 x8 (direct_post.jwt, SD-JWT VC + KB)", configuration: configuration) { benchmark in
        let prepared = try await World.shared.prepare(64)
        benchmark.startMeasurement()
        try await World.shared.post(prepared, concurrency: 8)
        benchmark.stopMeasurement()
    }

    Benchmark("service single response", configuration: configuration) { benchmark in
        let prepared = try await World.shared.prepare(1)
        benchmark.startMeasurement()
        try await World.shared.post(prepared, concurrency: 1)
        benchmark.stopMeasurement()
    }

    // The floor's inputs: an ephemeral-static ECDH pair, a 1.5 KB ciphertext, two ES256 signatures over
    // signing inputs of the sizes a PID presentation has (issuer JWT ~900 B, KB-JWT ~250 B).
    let recipient = P256.KeyAgreement.PrivateKey()
    let ephemeral = P256.KeyAgreement.PrivateKey().publicKey
    let gcmKey = SymmetricKey(size: .bits256)
    let sealed = must("seal") { try AES.GCM.seal(Data(repeating: 0x41, count: 1536), using: gcmKey) }
    let signer = P256.Signing.PrivateKey()
    let issuerInput = Data(repeating: 0x2E, count: 900)
    let kbInput = Data(repeating: 0x2E, count: 250)
    let issuerSignature = must("sign") { try signer.signature(for: issuerInput) }
    let kbSignature = must("sign") { try signer.signature(for: kbInput) }
    let floorConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 50, maxDuration: .seconds(5), maxIterations: 10_000)
    Benchmark("floor: ECDH + KDF + AES-GCM + 2 ES256 verifies", configuration: floorConfiguration) { benchmark in
        for _ in benchmark.scaledIterations {
            let secret = must("ecdh") { try recipient.sharedSecretFromKeyAgreement(with: ephemeral) }
            let derived = secret.withUnsafeBytes { SHA256.hash(data: Data([0, 0, 0, 1]) + Data($0)) }
            blackHole(derived)
            blackHole(must("open") { try AES.GCM.open(sealed, using: gcmKey) })
            blackHole(signer.publicKey.isValidSignature(issuerSignature, for: issuerInput))
            blackHole(signer.publicKey.isValidSignature(kbSignature, for: kbInput))
        }
    }
}
