// Verifier service capacity for direct_post.jwt responses carrying an SD-JWT VC with KB-JWT (package-benchmark),
// next to the per-response crypto floor measured in the same run.
//
//   scripts/bench   (builds the release tessera these benchmarks start, starts PostgreSQL, prints the ratios)
//
// The service runs as `tessera verifier serve` in child processes (release build), each pinned to one core with
// taskset; this process is the load generator and the wallet. One iteration starts 256 transactions on the first
// instance and prepares their encrypted responses (not measured), then posts the responses from 16 concurrent
// clients, spread round-robin over the instances as a load balancer would (measured). The service decrypts
// (ECDH-ES + A256GCM), verifies the SD-JWT VC (issuer ES256 via x5c to a root, Disclosures, KB-JWT ES256, aud,
// nonce, sd_hash), checks DCQL, and writes the verdict in one conditional UPDATE.
//   service CPU per response: the instances' on-CPU time (per thread, /proc/PID/task/TID/schedstat, in ns) over
//     the posts ÷ 256, i.e. the inverse of the rate per core. The database server's own CPU (PostgreSQL) is not in it.
//   responses/s: 256 ÷ wall time of the posts.
// service floor: the same load against ServiceFloor (Benchmarks/Tools/ServiceFloor): the same HTTP stack and SQLite
//   set-up (ServiceSQL's inline path, as the service), one SELECT and one UPDATE, and the crypto floor below per
//   request; nothing else. The gap between it and the crypto floor is what the HTTP stack and the database cost a
//   service that does nothing else. "service floor on Fluent's SQLite driver" (full run only): the same with a
//   thread-pool hop per statement, the floor as it was before issue 29.
// floor: per response, P-256 ECDH + SHA-256 (Concat KDF) + AES-GCM open of the same ciphertext size + two P-256
//   ECDSA verifies of the same signing inputs (issuer JWT, KB-JWT), one core.
// TESSERA_BENCH_SHORT=1 runs fewer iterations (CI).

import Benchmark
import BenchmarkSupport
import Crypto
import Foundation

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("VerifierServiceBenchmarks: \(label): \(error)") }
}

private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"
private let batch = 256
private let inFlight = 16
private let cpuPerResponse = BenchmarkMetric.custom("service CPU per response (ns)", polarity: .prefersSmaller, useScalingFactor: false)
private let responsesPerSecond = BenchmarkMetric.custom("responses/s", polarity: .prefersLarger, useScalingFactor: false)

let benchmarks: @Sendable () -> Void = {
    let serviceMetrics: [BenchmarkMetric] = [.wallClock, cpuPerResponse, responsesPerSecond]
    func deploymentBenchmark(_ name: String, _ deployment: Deployment) {
        Benchmark(
            name,
            configuration: .init(
                metrics: serviceMetrics, timeUnits: .milliseconds, warmupIterations: 1, maxDuration: .seconds(short ? 10 : 40),
                maxIterations: short ? 3 : 12, setup: { try await World.shared.start(deployment) },
                teardown: { await World.shared.stop() })
        ) { benchmark in
            let prepared = deployment.database.isFloor
                ? try await World.shared.prepareFloor(batch) : try await World.shared.prepare(batch)
            let cpuBefore = await World.shared.serviceCPU()
            let start = ContinuousClock.now
            benchmark.startMeasurement()
            try await World.shared.post(prepared, concurrency: inFlight)
            benchmark.stopMeasurement()
            let elapsed = ContinuousClock.now - start
            let cpu = World.cpuNanoseconds(from: cpuBefore, to: await World.shared.serviceCPU())
            benchmark.measurement(cpuPerResponse, cpu / batch)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            benchmark.measurement(responsesPerSecond, Int(Double(batch) / max(seconds, 1e-9)))
        }
    }
    deploymentBenchmark("service: SQLite, 1 instance (1 core)", Deployment(database: .sqlite, instances: 1, pinned: true))
    deploymentBenchmark("service floor: HTTP + SQLite + crypto floor (1 core)", Deployment(database: .floor, instances: 1, pinned: true))
    if !short {
        deploymentBenchmark(
            "service floor on Fluent's SQLite driver (1 core)", Deployment(database: .floorOnFluent, instances: 1, pinned: true))
    }
    if ProcessInfo.processInfo.environment["TESSERA_BENCH_POSTGRES_URL"].map({ !$0.isEmpty }) == true {
        deploymentBenchmark("service: PostgreSQL, 1 instance (1 core)", Deployment(database: .postgres, instances: 1, pinned: true))
        deploymentBenchmark("service: PostgreSQL, 2 instances (1 core each)", Deployment(database: .postgres, instances: 2, pinned: true))
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
        metrics: [.wallClock, .throughput], timeUnits: .microseconds, warmupIterations: 50,
        maxDuration: .seconds(short ? 2 : 5), maxIterations: 10_000)
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
