// Argon2id (RFC 9106) at the ledger's cost, m = 64 MiB, t = 3, 32-byte tag, with p = 1 and p = 4 lanes.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target Argon2Benchmarks
//   scripts/bench-argon2-vs-cffi       (the same two hashes with argon2-cffi, libargon2 in C, in the same run)
//
// Measured, one hash per iteration: `Argon2.hash(password:salt:parameters:)` as the device calls it (parameter
// checks, H0, the 64 MiB matrix allocated, filled in t passes of 4 slices, the tag, the matrix wiped and freed).
// p = 4 runs the lanes of each slice concurrently (DispatchQueue.concurrentPerform), so on a machine with fewer than
// 4 cores the lanes share them: wall clock is what a user waits, "CPU (ms)" (process CPU time, all threads) the work.
// Inputs: password "correct horse battery staple" (28 bytes), salt bytes 0x00...0x0f (16 bytes), no secret, no
// associated data: the ones scripts/bench-argon2-vs-cffi hands to argon2.low_level.hash_secret_raw, whose tag
// (below) the setup checks, so both sides compute the same function.
// Goal of issue 12: p50 wall clock <= 1.5 x argon2-cffi's on the same machine.

import Argon2
import Benchmark
import BenchmarkSupport
import Foundation

private let cpuMilliseconds = BenchmarkMetric.custom("CPU (ms)", polarity: .prefersSmaller, useScalingFactor: false)

private let password = Array("correct horse battery staple".utf8)
private let salt = (0..<16).map { UInt8($0) }

/// argon2.low_level.hash_secret_raw(password, salt, time_cost=3, memory_cost=65536, parallelism=p, hash_len=32,
/// type=Type.ID).hex() from argon2-cffi 25.1.0, which the setup of each benchmark checks.
private let expectedTags: [UInt32: String] = [
    1: "0d1a3c6523c8f06e4e0af9c515aa5b5448cfebd6838f2d52c3d8b6ef8ddc3c2e",
    4: "853b272a44db1421c02962669a55eb0994f3cab385ed1c4c79253eee19bab49e",
]

private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

let benchmarks: @Sendable () -> Void = {
    for lanes: UInt32 in [1, 4] {
        let parameters = Argon2Parameters(memoryKiB: 65_536, iterations: 3, parallelism: lanes, tagLength: 32)
        let configuration = Benchmark.Configuration(
            metrics: [.wallClock, cpuMilliseconds], timeUnits: .milliseconds, warmupIterations: 1,
            maxDuration: .seconds(15), maxIterations: 25,
            setup: {
                let tag = try Argon2.hash(password: password, salt: salt, parameters: parameters)
                guard hex(tag) == expectedTags[lanes] else {
                    fatalError("Argon2Benchmarks: p = \(lanes) gives \(hex(tag)), not argon2-cffi's tag")
                }
            })
        Benchmark("Argon2id m=64MiB t=3 p=\(lanes)", configuration: configuration) { benchmark in
            let cpu = processCPUMicroseconds()
            benchmark.startMeasurement()
            let tag = try Argon2.hash(password: password, salt: salt, parameters: parameters)
            benchmark.stopMeasurement()
            benchmark.measurement(cpuMilliseconds, (processCPUMicroseconds() - cpu) / 1_000)
            blackHole(tag)
        }
    }
}
