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
// pairs: WIA issuance X (service) / signature floor: what scripts/bench reports: per pair, a block of 50 issuances as
//   "WIA issuance (service)" (CPU, each request prepared outside the reading) and a block of 200 runs of the WIA floor
//   without the integrity token, in turns (BenchmarkSupport's InterleavedPairs), so that both sides see the same
//   machine.
// scale-out: nonce + WIA issuance, PostgreSQL, 2 instances / 1: `tessera provider serve` child processes on one
//   PostgreSQL database, one instance and two in turns (ScaleOut.swift).
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

private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"

/// "CPU (μs)": process CPU time of the measured part of one iteration.
private let cpuMicroseconds = BenchmarkMetric.custom("CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)

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

    // Pairs (scripts/bench): per pair, a block of 50 issuances (service; each request prepared outside the CPU
    // reading, as above) and then a block of 200 runs of the signature floor, CPU time per operation, so that both
    // sides see the same machine. The floor is the one without the integrity token, as in the goal of issue 27.
    let wiaPairs = InterleavedPairs(.rate)
    for (name, platform) in [("iOS", WIADevice.Platform.ios), ("Android", .android)] {
        Benchmark(
            "pairs: WIA issuance \(name) (service) / signature floor",
            configuration: wiaPairs.configuration(
                pairs: short ? 15 : 41, setup: { try await World.shared.startWIA(platform) }, teardown: teardown)
        ) { benchmark in
            guard let device = await World.shared.wiaDevice else { throw BenchmarkFailure("no provider") }
            let signatures = try await World.shared.wiaFloor(integrity: false)
            let issuances = 50
            var cpu = 0
            for _ in 0..<issuances {
                let request = try await device.prepare()
                let start = processCPUMicroseconds()
                blackHole(try await device.provider.server.benchmarkWalletInstanceAttestation(assertion: request))
                cpu += processCPUMicroseconds() - start
            }
            let floor = await processCPUNanoseconds(perOperationOf: 200) {
                guard signatures.run() else { fatalError("WalletProviderBenchmarks: a WIA floor signature stopped verifying") }
            }
            try wiaPairs.record(benchmark, flow: Double(cpu) * 1_000 / Double(issuances), floor: floor)
        }
    }

    // Scale-out (ScaleOut.swift): per pair, a batch of nonce + WIA issuance on one instance, then one on two; the ratio
    // is the two instances' requests/s over the one's. Needs PostgreSQL (scripts/bench starts it).
    if ProcessInfo.processInfo.environment["TESSERA_BENCH_POSTGRES_URL"].map({ !$0.isEmpty }) == true {
        let scaleOut = InterleavedPairs(.rate, label: "scale-out")
        let issuances = short ? 64 : 128
        Benchmark(
            "scale-out: nonce + WIA issuance, PostgreSQL, 2 instances / 1",
            configuration: scaleOut.configuration(
                pairs: short ? 7 : 15, setup: { try await ScaleOut.shared.start() }, teardown: { await ScaleOut.shared.stop() })
        ) { benchmark in
            let single = try await ScaleOut.shared.batch(issuances, on: await ScaleOut.shared.one)
            let double = try await ScaleOut.shared.batch(issuances, on: await ScaleOut.shared.two)
            try scaleOut.record(benchmark, flow: double.wallPerRequest, floor: single.wallPerRequest)
        }
    }
}
