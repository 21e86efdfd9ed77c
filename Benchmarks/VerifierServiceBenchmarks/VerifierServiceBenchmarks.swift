// Verifier service capacity for direct_post.jwt responses carrying an SD-JWT VC with KB-JWT (package-benchmark),
// next to the per-response crypto floor measured in the same run.
//
//   scripts/bench   (builds the release tessera these benchmarks start, starts PostgreSQL, prints the ratios)
//
// The service runs as `tessera verifier serve` in child processes (release build), each pinned to one core with
// taskset; this process is the load generator and the wallet. A batch starts N transactions (256; 128 in short mode)
// on the first instance and prepares their encrypted responses (not measured), then posts the responses from 16
// concurrent clients, spread round-robin over the instances as a load balancer would (measured). The service
// decrypts (ECDH-ES + A256GCM), verifies the SD-JWT VC (issuer ES256 via x5c to a root, Disclosures, KB-JWT ES256,
// aud, nonce, sd_hash), checks DCQL, and writes the verdict in one conditional UPDATE.
//   service CPU per response: the instances' on-CPU time (per thread, /proc/PID/task/TID/schedstat, in ns) over
//     the posts ÷ N, i.e. the inverse of the rate per core. The database server's own CPU (PostgreSQL) is not in it.
//   responses/s: N ÷ wall time of the posts.
// floor: per response, P-256 ECDH + SHA-256 (Concat KDF) + AES-GCM open of the same ciphertext size + two P-256
//   ECDSA verifies of the same signing inputs (issuer JWT, KB-JWT), one core; in the pairs, the process CPU time
//   of a block of 256 of them in this process.
// pairs: service, SQLite (1 core) / crypto floor: what scripts/bench reports: a batch on one instance, then a block of
//   the floor, in turns (BenchmarkSupport's InterleavedPairs); each pair's ratio is floor CPU / service CPU per
//   response, so both sides see the same machine.
// pairs: service, PostgreSQL (1 core) / crypto floor; 2 instances / 1: per pair, a batch on one instance, a block of
//   the floor, a batch on two instances (one core each, a second deployment on the same database, running beside
//   the first): two ratios per pair, floor / service CPU per response ("pair ratio") and the two instances'
//   responses/s over the one instance's ("scale-out pair ratio").
// service floor: the same load against ServiceFloor (Benchmarks/Tools/ServiceFloor): the same HTTP stack and SQLite
//   set-up (ServiceSQL's inline path, as the service), one SELECT and one UPDATE, and the crypto floor below per
//   request; nothing else. The gap between it and the crypto floor is what the HTTP stack and the database cost a
//   service that does nothing else. "service floor on Fluent's SQLite driver" (full run only): the same with a
//   thread-pool hop per statement, the floor as it was before issue 29. Diagnostics: batches, not pairs.
// TESSERA_BENCH_SHORT=1 runs fewer pairs and smaller batches (CI).

import Benchmark
import BenchmarkSupport
import Crypto
import Foundation

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("VerifierServiceBenchmarks: \(label): \(error)") }
}

private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"
private let batch = short ? 128 : 256
private let inFlight = 16
private let cpuPerResponse = BenchmarkMetric.custom("service CPU per response (ns)", polarity: .prefersSmaller, useScalingFactor: false)
private let responsesPerSecond = BenchmarkMetric.custom("responses/s", polarity: .prefersLarger, useScalingFactor: false)

/// The per-response crypto floor: an ephemeral-static ECDH pair, a 1.5 KB ciphertext, two ES256 signatures over
/// signing inputs of the sizes a PID presentation has (issuer JWT ~900 B, KB-JWT ~250 B).
private struct CryptoFloor: Sendable {
    let recipient = P256.KeyAgreement.PrivateKey()
    let ephemeral = P256.KeyAgreement.PrivateKey().publicKey
    let gcmKey: SymmetricKey
    let sealed: AES.GCM.SealedBox
    let signer: P256.Signing.PrivateKey
    let issuerInput = Data(repeating: 0x2E, count: 900)
    let kbInput = Data(repeating: 0x2E, count: 250)
    let issuerSignature: P256.Signing.ECDSASignature
    let kbSignature: P256.Signing.ECDSASignature

    init() {
        let (gcmKey, signer) = (SymmetricKey(size: .bits256), P256.Signing.PrivateKey())
        (self.gcmKey, self.signer) = (gcmKey, signer)
        sealed = must("seal") { try AES.GCM.seal(Data(repeating: 0x41, count: 1536), using: gcmKey) }
        issuerSignature = must("sign") { try signer.signature(for: Data(repeating: 0x2E, count: 900)) }
        kbSignature = must("sign") { try signer.signature(for: Data(repeating: 0x2E, count: 250)) }
    }

    func run() {
        let secret = must("ecdh") { try recipient.sharedSecretFromKeyAgreement(with: ephemeral) }
        let derived = secret.withUnsafeBytes { SHA256.hash(data: Data([0, 0, 0, 1]) + Data($0)) }
        blackHole(derived)
        blackHole(must("open") { try AES.GCM.open(sealed, using: gcmKey) })
        blackHole(signer.publicKey.isValidSignature(issuerSignature, for: issuerInput))
        blackHole(signer.publicKey.isValidSignature(kbSignature, for: kbInput))
    }
}

let benchmarks: @Sendable () -> Void = {
    let floor = CryptoFloor()
    /// The floor's CPU per response in this process, over a block of 256 (a few tens of ms).
    @Sendable func floorBlock() async -> Double { await processCPUNanoseconds(perOperationOf: 256) { floor.run() } }
    let postgres = ProcessInfo.processInfo.environment["TESSERA_BENCH_POSTGRES_URL"].map { !$0.isEmpty } == true
    let teardown: @Sendable () async throws -> Void = { await World.shared.stop() }
    let pairsCount = short ? 7 : 15

    // MARK: pairs (scripts/bench)

    let perCore = InterleavedPairs(.rate)
    let sqlite = Deployment(database: .sqlite, instances: 1, pinned: true)
    Benchmark(
        "pairs: service, SQLite (1 core) / crypto floor",
        configuration: perCore.configuration(
            pairs: pairsCount, setup: { try await World.shared.start([sqlite]) }, teardown: teardown)
    ) { benchmark in
        let service = try await World.shared.batch(batch, inFlight: inFlight, on: sqlite)
        try perCore.record(benchmark, flow: service.cpuPerRequest, floor: await floorBlock())
    }
    if postgres {
        let one = Deployment(database: .postgres, instances: 1, pinned: true)
        let two = Deployment(database: .postgres, instances: 2, pinned: true)
        let scaleOut = InterleavedPairs(.rate, label: "scale-out")
        Benchmark(
            "pairs: service, PostgreSQL (1 core) / crypto floor; 2 instances / 1",
            configuration: perCore.configuration(
                pairs: pairsCount, recording: [perCore, scaleOut], setup: { try await World.shared.start([one, two]) },
                teardown: teardown)
        ) { benchmark in
            let single = try await World.shared.batch(batch, inFlight: inFlight, on: one)
            try perCore.record(benchmark, flow: single.cpuPerRequest, floor: await floorBlock())
            let double = try await World.shared.batch(batch, inFlight: inFlight, on: two)
            try scaleOut.record(benchmark, flow: double.wallPerRequest, floor: single.wallPerRequest)
        }
    }

    // MARK: diagnostics: the service floor, and the services alone

    func deploymentBenchmark(_ name: String, _ deployment: Deployment) {
        Benchmark(
            name,
            configuration: .init(
                metrics: [cpuPerResponse, responsesPerSecond], warmupIterations: 1, maxDuration: .seconds(short ? 10 : 40),
                maxIterations: short ? 3 : 12, setup: { try await World.shared.start([deployment]) }, teardown: teardown)
        ) { benchmark in
            // The batch's own figures (its posts); the iteration also prepares the responses, which is not measured.
            let cost = try await World.shared.batch(batch, inFlight: inFlight, on: deployment)
            benchmark.measurement(cpuPerResponse, Int(cost.cpuPerRequest))
            benchmark.measurement(responsesPerSecond, Int(cost.perSecond))
        }
    }
    deploymentBenchmark("service floor: HTTP + SQLite + crypto floor (1 core)", Deployment(database: .floor, instances: 1, pinned: true))
    if !short {
        deploymentBenchmark(
            "service floor on Fluent's SQLite driver (1 core)", Deployment(database: .floorOnFluent, instances: 1, pinned: true))
    }
    // By hand: each deployment alone, batches only (scripts/bench reads the pairs above).
    deploymentBenchmark("service: SQLite, 1 instance (1 core)", sqlite)
    if postgres {
        deploymentBenchmark("service: PostgreSQL, 1 instance (1 core)", Deployment(database: .postgres, instances: 1, pinned: true))
        deploymentBenchmark("service: PostgreSQL, 2 instances (1 core each)", Deployment(database: .postgres, instances: 2, pinned: true))
    }

    Benchmark(
        "floor: ECDH + KDF + AES-GCM + 2 ES256 verifies",
        configuration: .init(
            metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 50,
            maxDuration: .seconds(short ? 2 : 5), maxIterations: 10_000)
    ) { benchmark in
        for _ in benchmark.scaledIterations { floor.run() }
    }
}
