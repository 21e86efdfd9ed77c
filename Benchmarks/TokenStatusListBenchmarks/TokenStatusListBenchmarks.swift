// Status List re-issue (package-benchmark), next to its floor measured in the same run.
//
//   cd Benchmarks && swift package benchmark --target TokenStatusListBenchmarks
//
// re-issue JWT 10k: what a Wallet Provider does after a revocation, for a list of 10,000 entries of 1 bit with 100
//   revoked: the list built from the revoked indices, compressed (zlib level 9), the JWT claims written and signed
//   (ES256, kid header).
// re-issue JWT 1M, re-issue CWT 1M: the same for 1,000,000 entries with 10,000 revoked, as a JWT and as a CWT
//   (COSE_Sign1, typ and kid headers, claims map).
// floor: the same compress2 at level 9 on the same bytes, called directly (zlib 10k, zlib 1M), and one ES256
//   signature over the 1M JWT's signing input (ES256 sign). The ratio of a flow is its time over (zlib + sign).
// pairs: re-issue X / zlib + ES256 sign: what scripts/bench reports: a re-issue and its floor (compress2 of the same
//   bytes, then one ES256 signature) in turns inside one benchmark (BenchmarkSupport's InterleavedPairs), a block of
//   each per pair, each pair's ratio recorded, so that both sides see the same machine.
// TESSERA_BENCH_SHORT=1 measures for less time (CI).

import Benchmark
import BenchmarkSupport
import CZlibFloor
import Crypto
import Foundation
import TesseraCOSE
import TesseraCore
import TesseraJOSE
import TokenStatusList

private func must<T>(_ label: String, _ body: () throws -> T) -> T {
    do { return try body() } catch { fatalError("TokenStatusListBenchmarks: \(label): \(error)") }
}

/// `bytes` compressed by the system zlib at level 9: the floor's compression.
private func zlibCompress(_ bytes: [UInt8]) -> Int {
    var capacity = compressBound(uLong(bytes.count))
    var out = [UInt8](repeating: 0, count: Int(capacity))
    let status = out.withUnsafeMutableBufferPointer { target in
        bytes.withUnsafeBufferPointer { source in
            compress2(target.baseAddress, &capacity, source.baseAddress, uLong(source.count), Z_BEST_COMPRESSION)
        }
    }
    guard status == Z_OK else { fatalError("TokenStatusListBenchmarks: compress2 failed (\(status))") }
    return Int(capacity)
}

private let short = ProcessInfo.processInfo.environment["TESSERA_BENCH_SHORT"] == "1"

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal], timeUnits: .microseconds, warmupIterations: 1,
        maxDuration: .seconds(short ? 1 : 4), maxIterations: short ? 200 : 2_000)

    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let random = SeededRandomSource(seed: 27)
    let p256 = must("key") { try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)) }
    let jwsKey = JWSSigningKey.es256(p256)
    let coseKey = COSESigningKey.p256(p256)
    let subject = "https://wallet-provider.example.org/status/wia/1"
    var generator = random.generator
    let revoked10k = (0..<100).map { _ in Int.random(in: 0..<10_000, using: &generator) }
    let revoked1M = (0..<10_000).map { _ in Int.random(in: 0..<1_000_000, using: &generator) }

    @Sendable func reissueJWT(_ count: Int, _ revoked: [Int]) throws -> String {
        let list = try StatusList(bits: 1, count: count, setting: revoked)
        return try StatusListToken.issue(
            list, subject: subject, issuedAt: now, expiresAt: now.addingTimeInterval(86_400), timeToLive: 3600,
            key: jwsKey, keyID: "wp-status-1"
        ).jwt.compact
    }

    Benchmark("re-issue JWT 10k", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try reissueJWT(10_000, revoked10k)) }
    }
    Benchmark("re-issue JWT 1M", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try reissueJWT(1_000_000, revoked1M)) }
    }
    @Sendable func reissueCWT() throws -> Data {
        let list = try StatusList(bits: 1, count: 1_000_000, setting: revoked1M)
        return try StatusListCWT.issue(
            list, subject: subject, issuedAt: now, expiresAt: now.addingTimeInterval(86_400), timeToLive: 3600,
            key: coseKey, keyID: Data("wp-status-1".utf8)
        ).bytes
    }
    Benchmark("re-issue CWT 1M", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try reissueCWT()) }
    }

    // The floor's inputs: the same uncompressed bytes, and the 1M token's signing input.
    let bytes10k = must("10k") { try StatusList(bits: 1, count: 10_000, setting: revoked10k).bytes }
    let bytes1M = must("1M") { try StatusList(bits: 1, count: 1_000_000, setting: revoked1M).bytes }
    let token1M = must("token") { try StatusListToken(parsing: try reissueJWT(1_000_000, revoked1M)) }
    let signingInput = Data(token1M.jwt.signingInput.utf8)

    Benchmark("floor: zlib 10k", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(zlibCompress(bytes10k)) }
    }
    Benchmark("floor: zlib 1M", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(zlibCompress(bytes1M)) }
    }
    Benchmark("floor: ES256 sign", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try p256.signature(for: signingInput)) }
    }

    // Blocks of 100 ms of either side (two 1M re-issues, or some thousand 10k ones): both blocks of a pair see the
    // same load. The figure is the block's process CPU time per operation (wall time on an idle machine; a busy one
    // barely moves it).
    let pairs = InterleavedPairs(.cost)
    let pairConfiguration = pairs.configuration(pairs: short ? 11 : 31)
    let block = Duration.milliseconds(100)
    let rows: [(name: String, bytes: [UInt8], flow: @Sendable () throws -> Void)] = [
        ("re-issue JWT 10k", bytes10k, { blackHole(try reissueJWT(10_000, revoked10k)) }),
        ("re-issue JWT 1M", bytes1M, { blackHole(try reissueJWT(1_000_000, revoked1M)) }),
        ("re-issue CWT 1M", bytes1M, { blackHole(try reissueCWT()) }),
    ]
    for row in rows {
        Benchmark("pairs: \(row.name) / zlib + ES256 sign", configuration: pairConfiguration) { benchmark in
            try await pairs.pair(
                benchmark, flow: { try await processCPUNanoseconds(perOperationFor: block) { try row.flow() } },
                floor: {
                    try await processCPUNanoseconds(perOperationFor: block) {
                        blackHole(zlibCompress(row.bytes))
                        blackHole(try p256.signature(for: signingInput))
                    }
                })
        }
    }
}
