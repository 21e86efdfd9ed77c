// Ledger `POST /api/v1/auth/execute` per second per core, next to its floor measured in the same run.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target LedgerBenchmarks
//
// Each benchmark process starts what it needs on loopback: a real LedgerServer (Vapor + Fluent, its own SQLite file
// in a temporary directory, WAL, synchronous=NORMAL, as `tessera ledger serve` runs it), no NATS. Rate limits are
// raised out of the way; everything else is the production configuration (20 transaction keys at enrollment, +10
// when <= 10 are left) except the KDF, set to m = 64 KiB, t = 1, p = 1: Argon2id runs on the device, never on the
// ledger, and is outside every measured part anyway (the device's hash is computed once, in setup).
//
// auth/execute (HTTP): a user enrolled through VaultClient (enroll/start, set-password, finalize). Not measured, per
// iteration: the device's part, i.e. the signed `POST /action/request` (action token, jti, use_key_id, LAT proof,
// which is checked), the password hash sealed to the UTK use_key_id with aad pw|user|jti|key_id, the body; and after
// the answer, the device taking the new credential package (blob, LAT, transaction keys). Measured: the
// `POST /auth/execute` with the Bearer action token, from the request until the whole 200 answer is read: HTTP,
// the token and the key consumed (two conditional UPDATEs), the password hash opened with the LTK, the blob opened
// with the CEK, the constant-time comparison, and the rotation in one transaction (a new CEK, the blob sealed to
// it, a new LAT, both sealed with the master key, user row UPDATE, CEK DELETE + INSERT, the unused keys read, and
// every 10th execute 10 new transaction keys generated, sealed and inserted). A user is used for 100 executes, then
// a fresh one is enrolled (not measured): a user's used transaction keys stay in lg_transaction_keys, so one user
// logging in thousands of times would measure the growth of that table (see "10 in a row" for the amortised cost).
//   "one at a time": one execute per iteration; its p50 is an execute without the key top-up.
//   "10 in a row": 10 consecutive executes of one user per iteration (exactly one key top-up among them), each
//     timed alone; custom metrics give the mean per execute, so the top-up is amortised as it is in service.
// "server CPU (μs)": process CPU time (all threads: event loops, Swift tasks, the SQLite thread pool) of the measured
//   part, minus the CPU time of the HTTP client's own event-loop thread, i.e. what the ledger spent; "per core" =
//   1e6 / server CPU. "client CPU (μs)" is that client thread's share, for reference.
//
// floors (same process layout, no HTTP):
//   crypto: what the issue calls the floor: two X25519 agreements, two HKDF-SHA256, two ChaCha20-Poly1305 opens:
//     `Seal.open` (LedgerProtocol, the ledger's own code) of a 32-byte password hash sealed to an LTK, and of a blob
//     of the ledger's shape ({user_guid, password_hash, kdf, policies} with the production KDF: 261 bytes) sealed
//     to a CEK, keys parsed once.
//   database writes: the writes of one successful execute without key top-up, as SQLKit statements run through
//     the path the ledger takes (InlineSQLite: statements on the caller's thread) on the ledger's own file (a second
//     InlineSQLite on it, WAL, synchronous=NORMAL):
//     UPDATE lg_action_tokens … RETURNING (token spent), UPDATE lg_transaction_keys … RETURNING (key spent), then
//     one transaction {UPDATE lg_users … WHERE cek_version = ? RETURNING id, DELETE FROM lg_ceks …, INSERT INTO
//     lg_ceks}. Not measured: inserting the token and key rows they consume. No reads (the service also reads the
//     user row, the CEK row and the unused keys: 3 SELECTs), no key top-up.
//   crypto + database writes: both, in one iteration, in the service's order.
//
// pairs: auth/execute (HTTP) / crypto + database writes: what scripts/bench reports: per pair, a block of 20
//   executes (server CPU, each prepared and taken up outside the CPU reading, as above) and then a block of 40 runs of
//   the floor "crypto + database writes" (its CPU), on one ledger and its file (the floor rotates a user of its own),
//   so that both sides see the same machine (BenchmarkSupport's InterleavedPairs).
//
// scale-out: action request + auth execute, PostgreSQL, 2 instances / 1: logins of 16 users against
//   `tessera ledger serve` child processes on one PostgreSQL database, one instance and two in turns (ScaleOut.swift).
//
// breakdown (where an execute's time goes beyond the floor; each measured alone, same layout):
//   database reads of one execute: the 3 SELECTs of the service (user row, CEK row, unused keys) on the same file.
//   all crypto of one execute: the floor's opens plus what the floor leaves out: the LTK and the CEK unsealed with
//     the master key, a new CEK key pair, the blob sealed to it (one more X25519 key pair and agreement, HKDF,
//     ChaCha20-Poly1305), a new LAT, the CEK and the LAT sealed with the master key, and the key top-up's share per
//     execute (one X25519 key pair and one master-key seal).
//   bare Vapor route: the same request (body, Bearer header) over the same client to a Vapor application whose
//     async route only parses the JSON body and answers a real execute answer (the credential package and the
//     keys, a few KB) serialized with the ledger's headers: HTTP + JSON, no database, no crypto.
//   Statements per successful execute in the service: 4 outside the transaction (token UPDATE, user SELECT, key
//   UPDATE, CEK SELECT), 4 inside the transaction (UPDATE user, DELETE + INSERT CEK, SELECT unused keys) plus BEGIN
//   and COMMIT, and every 10th execute 10 INSERTs of new keys: 11 statements on average; the writes floor runs 7
//   (5 + BEGIN/COMMIT).

import AsyncHTTPClient
import Benchmark
import BenchmarkSupport
import Crypto
import Fluent
import FluentSQLiteDriver
import Foundation
import HolderKit
import Ledger
import LedgerProtocol
import ServiceSupport
import TesseraCore
import TesseraJOSE
import VaultClient
import Vapor
import HTTPTransport

#if canImport(Glibc)
    import Glibc
#endif

private let serverCPU = BenchmarkMetric.custom("server CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let clientCPU = BenchmarkMetric.custom("client CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let processCPU = BenchmarkMetric.custom("CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let perCore = BenchmarkMetric.custom("per s per core", polarity: .prefersLarger, useScalingFactor: false)
private let wallPerOperation = BenchmarkMetric.custom("wall μs/execute", polarity: .prefersSmaller, useScalingFactor: false)
private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    let teardown: @Sendable () async throws -> Void = { await World.shared.shutdown() }
    let service = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, serverCPU, clientCPU, processCPU, perCore], timeUnits: .microseconds,
        warmupIterations: 20, maxDuration: .seconds(8), maxIterations: 3_000,
        setup: {
            try await World.shared.startLedger()
            try await World.shared.checkLogin()
        }, teardown: teardown)

    Benchmark("ledger: auth/execute (HTTP), one at a time", configuration: service) { benchmark in
        let world = World.shared
        guard let measured = await world.measured else { throw BenchmarkFailure("no ledger") }
        let (client, baseURL, clientClock) = measured
        let prepared = try await world.prepare()
        let (cpu, clientStart) = (processCPUMicroseconds(), cpuMicroseconds(of: clientClock))
        benchmark.startMeasurement()
        let answer = try await world.execute(prepared, client: client, baseURL: baseURL)
        benchmark.stopMeasurement()
        let (process, clientUsed) = (processCPUMicroseconds() - cpu, cpuMicroseconds(of: clientClock) - clientStart)
        benchmark.measurement(processCPU, process)
        benchmark.measurement(clientCPU, clientUsed)
        benchmark.measurement(serverCPU, process - clientUsed)
        benchmark.measurement(perCore, 1_000_000 / max(1, process - clientUsed))
        try await world.finish(answer, prepared)
    }

    let batch = 10
    Benchmark(
        "ledger: auth/execute (HTTP), 10 in a row, mean per execute",
        configuration: .init(
            metrics: [serverCPU, clientCPU, processCPU, perCore, wallPerOperation], warmupIterations: 2,
            maxDuration: .seconds(8), maxIterations: 300, setup: service.setup, teardown: teardown)
    ) { benchmark in
        let world = World.shared
        guard let measured = await world.measured else { throw BenchmarkFailure("no ledger") }
        let (client, baseURL, clientClock) = measured
        let clock = ContinuousClock()
        var (wall, process, clientUsed) = (Duration.zero, 0, 0)
        // Users change after 100 executes (setup's check counts as one), so top-ups fall on every 10th execute of the
        // run: any 10 consecutive executes include exactly one. Enrolling a new user happens in prepare(), not timed.
        for _ in 0..<batch {
            let prepared = try await world.prepare()
            let (cpu, clientStart, start) = (processCPUMicroseconds(), cpuMicroseconds(of: clientClock), clock.now)
            let answer = try await world.execute(prepared, client: client, baseURL: baseURL)
            wall += clock.now - start
            process += processCPUMicroseconds() - cpu
            clientUsed += cpuMicroseconds(of: clientClock) - clientStart
            try await world.finish(answer, prepared)
        }
        benchmark.measurement(wallPerOperation, Int((wall / batch) / .microseconds(1)))
        benchmark.measurement(processCPU, process / batch)
        benchmark.measurement(clientCPU, clientUsed / batch)
        benchmark.measurement(serverCPU, (process - clientUsed) / batch)
        benchmark.measurement(perCore, 1_000_000 * batch / max(1, process - clientUsed))
    }

    let floorMetrics: [BenchmarkMetric] = [.wallClock, .throughput, processCPU, perCore]
    let cryptoFloor: CryptoFloor
    do { cryptoFloor = try CryptoFloor() } catch { fatalError("LedgerBenchmarks: \(error)") }
    Benchmark(
        "floor: crypto (2 X25519 + 2 HKDF + 2 ChaCha20-Poly1305 opens)",
        configuration: .init(metrics: floorMetrics, timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3), maxIterations: 50_000)
    ) { benchmark in
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try cryptoFloor.run()
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }

    let database = Benchmark.Configuration(
        metrics: floorMetrics, timeUnits: .microseconds, warmupIterations: 20, maxDuration: .seconds(5), maxIterations: 5_000,
        setup: { try await World.shared.startFloorDatabase() }, teardown: teardown)
    Benchmark("floor: database writes of one execute (2 UPDATE + tx{UPDATE, DELETE, INSERT})", configuration: database) { benchmark in
        guard let db = await World.shared.floorDatabase else { throw BenchmarkFailure("no database") }
        let (token, keyID) = try await db.seed()
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await db.writes(token: token, keyID: keyID)
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
    Benchmark("breakdown: database reads of one execute (3 SELECT)", configuration: database) { benchmark in
        guard let db = await World.shared.floorDatabase else { throw BenchmarkFailure("no database") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await db.reads()
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
    let fullCrypto: FullCrypto
    do { fullCrypto = try FullCrypto(floor: cryptoFloor) } catch { fatalError("LedgerBenchmarks: \(error)") }
    Benchmark(
        "breakdown: all crypto of one execute (floor + master key + rotation + top-up share)",
        configuration: .init(metrics: floorMetrics, timeUnits: .microseconds, warmupIterations: 100, maxDuration: .seconds(3), maxIterations: 50_000)
    ) { benchmark in
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try fullCrypto.run()
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }
    Benchmark(
        "breakdown: bare Vapor route, same request and answer (HTTP + JSON only)",
        configuration: .init(
            metrics: [.wallClock, .throughput, serverCPU, clientCPU, processCPU, perCore], timeUnits: .microseconds,
            warmupIterations: 50, maxDuration: .seconds(4), maxIterations: 20_000,
            setup: { try await World.shared.startBare() }, teardown: teardown)
    ) { benchmark in
        let world = World.shared
        guard let measured = await world.measured, let bare = await world.bare else { throw BenchmarkFailure("no server") }
        let (cpu, clientStart) = (processCPUMicroseconds(), cpuMicroseconds(of: measured.clientClock))
        benchmark.startMeasurement()
        _ = try await world.execute(bare.request, client: measured.client, baseURL: bare.server.baseURL)
        benchmark.stopMeasurement()
        let (process, clientUsed) = (processCPUMicroseconds() - cpu, cpuMicroseconds(of: measured.clientClock) - clientStart)
        benchmark.measurement(processCPU, process)
        benchmark.measurement(clientCPU, clientUsed)
        benchmark.measurement(serverCPU, process - clientUsed)
        benchmark.measurement(perCore, 1_000_000 / max(1, process - clientUsed))
    }

    Benchmark("floor: crypto + database writes", configuration: database) { benchmark in
        guard let db = await World.shared.floorDatabase else { throw BenchmarkFailure("no database") }
        let (token, keyID) = try await db.seed()
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await db.writes(token: token, keyID: keyID, between: cryptoFloor)
        benchmark.stopMeasurement()
        let used = processCPUMicroseconds() - cpu
        benchmark.measurement(processCPU, used)
        benchmark.measurement(perCore, 1_000_000 / max(1, used))
    }

    let pairs = InterleavedPairs(.cost)
    Benchmark(
        "pairs: auth/execute (HTTP) / crypto + database writes",
        configuration: pairs.configuration(
            pairs: short ? 15 : 41, setup: { try await World.shared.startPairs() }, teardown: teardown)
    ) { benchmark in
        let world = World.shared
        guard let measured = await world.measured, let db = await world.floorDatabase else { throw BenchmarkFailure("no ledger") }
        let (executes, floors) = (20, 40)
        var server = 0
        for _ in 0..<executes {
            let prepared = try await world.prepare()
            let (cpu, clientStart) = (processCPUMicroseconds(), cpuMicroseconds(of: measured.clientClock))
            let answer = try await world.execute(prepared, client: measured.client, baseURL: measured.baseURL)
            server += (processCPUMicroseconds() - cpu) - (cpuMicroseconds(of: measured.clientClock) - clientStart)
            try await world.finish(answer, prepared)
        }
        var floor = 0
        for _ in 0..<floors {
            let (token, keyID) = try await db.seed()
            let cpu = processCPUMicroseconds()
            try await db.writes(token: token, keyID: keyID, between: cryptoFloor)
            floor += processCPUMicroseconds() - cpu
        }
        try pairs.record(benchmark, flow: Double(server) * 1_000 / Double(executes), floor: Double(floor) * 1_000 / Double(floors))
    }

    // Scale-out (ScaleOut.swift): per pair, a batch of logins on one instance, then one on two; the ratio is the two
    // instances' logins/s over the one's. Needs PostgreSQL (scripts/bench starts it).
    if ProcessInfo.processInfo.environment["TESSERA_BENCH_POSTGRES_URL"].map({ !$0.isEmpty }) == true {
        let scaleOut = InterleavedPairs(.rate, label: "scale-out")
        let logins = short ? 64 : 128
        Benchmark(
            "scale-out: action request + auth execute, PostgreSQL, 2 instances / 1",
            configuration: scaleOut.configuration(
                pairs: short ? 7 : 15, setup: { try await ScaleOut.shared.start() }, teardown: { await ScaleOut.shared.stop() })
        ) { benchmark in
            let single = try await ScaleOut.shared.batch(logins, on: await ScaleOut.shared.one)
            let double = try await ScaleOut.shared.batch(logins, on: await ScaleOut.shared.two)
            try scaleOut.record(benchmark, flow: double.wallPerRequest, floor: single.wallPerRequest)
        }
    }
}
