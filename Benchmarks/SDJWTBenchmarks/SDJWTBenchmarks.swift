// SD-JWT VC verification benchmark (package-benchmark), next to its crypto floor measured in the same run.
//
//   cd Benchmarks && swift package benchmark --target SDJWTBenchmarks
//
// SDJWT verify 20 claims + KB: parse a presentation of a 20-claim SD-JWT VC disclosing all 20 claims with a
//   KB-JWT, and verify it fully (issuer ES256 signature with a fixed key, 20 Disclosure digests, §7.1 rules,
//   exp/iat, typ, vct, KB-JWT ES256 signature, aud, nonce, iat window, sd_hash).
// floor: ES256 verify of the Issuer-signed JWT + ES256 verify of the KB-JWT + SHA-256 of the 20 Disclosure strings
//   + SHA-256 of the sd_hash input, on the same bytes.
// pairs: verify / floor: what scripts/bench reports: the two above in turns inside one benchmark (BenchmarkSupport's
//   InterleavedPairs), a block of each per pair, each pair's ratio recorded, so that both sides see the same machine.
// part: …: where the time above the floor goes (diagnostics, by hand: scripts/bench does not run them).
// TESSERA_BENCH_SHORT=1 runs fewer pairs (CI).

import Benchmark
import BenchmarkSupport
import Crypto
import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("SDJWTBenchmarks: \(label): \(error)") }
}

private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .kilo,
        maxDuration: .seconds(5), maxIterations: 10_000)

    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let clock = FixedClock(now)
    let random = SeededRandomSource(seed: 20)
    let issuerKey = must("issuer key") { JWSSigningKey.es256(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32))) }
    let holderKey = must("holder key") { JWSSigningKey.es256(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32))) }
    var claims = JSONObject()
    for index in 0..<20 { claims["claim_\(index)"] = .string("value of claim number \(index)") }
    let paths = must("paths") { try (0..<20).map { try ClaimsPathPointer(keys: "claim_\($0)") } }
    let credential = must("issue") {
        try SDJWTIssuer(signingKey: issuerKey, clock: clock, random: random).issueVC(
            vct: "urn:eudi:pid:1", claims: claims, disclosable: paths, holderKey: holderKey.publicJWK,
            issuer: "https://issuer.example.com", validity: 86_400)
    }
    let audience = "x509_san_dns:verifier.example.org"
    let nonce = "n-0S6_WzA2Mj"
    let presentation = must("present") {
        try SDJWTPresentation.present(
            credential, disclosing: paths, holderKey: holderKey, audience: audience, nonce: nonce, clock: clock)
    }
    let verifier = SDJWTVerifier(
        policy: .sdJWTVC(issuerKeySource: .key(issuerKey.verificationKey), expectedAudience: audience, expectedNonce: nonce),
        clock: clock)

    @Sendable func verify() async {
        let outcome = await verifier.verify(presentation)
        guard outcome.isValid, outcome.processedClaims.count == 25 else {
            fatalError("SDJWTBenchmarks: presentation does not verify: \(outcome.errors)")
        }
        blackHole(outcome)
    }
    Benchmark("SDJWT verify 20 claims + KB", configuration: configuration) { benchmark in
        // Timed inside the task: an async benchmark runs in a Task the harness waits for with a semaphore, and that
        // hand-over between threads is the harness's cost, not the flow's (the synchronous floor never pays it).
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { await verify() }
        benchmark.stopMeasurement()
    }

    // The floor's inputs: the same bytes.
    let parsed = must("parse") { try SDJWT(parsing: presentation) }
    guard let kbJWT = parsed.keyBindingJWT,
        case .es256(let issuerPublic) = issuerKey.verificationKey,
        case .es256(let holderPublic) = holderKey.verificationKey
    else { fatalError("SDJWTBenchmarks: no KB-JWT") }
    let issuerInput = Data(parsed.issuerSignedJWT.signingInput.utf8)
    let issuerSignature = must("issuer signature") { try P256.Signing.ECDSASignature(rawRepresentation: parsed.issuerSignedJWT.signature) }
    let kbInput = Data(kbJWT.signingInput.utf8)
    let kbSignature = must("KB signature") { try P256.Signing.ECDSASignature(rawRepresentation: kbJWT.signature) }
    let disclosureStrings = parsed.disclosures.map { Data($0.encoded.utf8) }
    let sdHashInput = Data(parsed.sdHashInput.utf8)

    @Sendable func cryptoFloor() {
        guard issuerPublic.isValidSignature(issuerSignature, for: issuerInput),
            holderPublic.isValidSignature(kbSignature, for: kbInput)
        else { fatalError("SDJWTBenchmarks: floor signatures do not verify") }
        for disclosure in disclosureStrings { blackHole(SHA256.hash(data: disclosure)) }
        blackHole(SHA256.hash(data: sdHashInput))
    }
    Benchmark("floor", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { cryptoFloor() }
    }

    // A block is 100 ms of either side (about a thousand operations): both blocks of a pair see the same load. The
    // figure is the block's process CPU time per operation (wall time on an idle machine; a busy one barely moves it).
    let pairs = InterleavedPairs(.cost)
    Benchmark("pairs: verify 20 claims + KB / floor", configuration: pairs.configuration(pairs: short ? 21 : 51)) { benchmark in
        try await pairs.pair(
            benchmark, flow: { await processCPUNanoseconds(perOperationFor: .milliseconds(100)) { await verify() } },
            floor: { await processCPUNanoseconds(perOperationFor: .milliseconds(100)) { cryptoFloor() } })
    }

    // Where the time above the floor goes (diagnostics, not goals).
    Benchmark("part: parse", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try SDJWT(parsing: presentation)) }
    }
    Benchmark("part: Disclosures processed", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try parsed.unverifiedClaims()) }
    }
    let cnf = must("cnf") { try parsed.unverifiedClaims()["cnf"]?["jwk"]?.objectValue ?? JSONObject() }
    Benchmark("part: cnf key", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JWSVerificationKey(jwk: JWK(json: cnf))) }
    }
    let issuerVerificationKey = issuerKey.verificationKey
    Benchmark("part: 2 JOSE verify", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            try parsed.issuerSignedJWT.verify(with: issuerVerificationKey)
            try kbJWT.verify(with: holderKey.verificationKey)
        }
    }
}
