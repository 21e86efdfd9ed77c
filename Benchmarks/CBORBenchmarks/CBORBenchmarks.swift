// TesseraCBOR decode and encode benchmarks (package-benchmark).
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
//   cd Benchmarks && swift package benchmark --filter 'decode.*'
//
// Inputs, read from the repository when the benchmarks start (the same files that
// scripts/bench-cbor-vs-cbor2 hands to Python's cbor2):
//   AnnexD        Sources/tessera/Resources/annex-d-device-response.cbor (ISO/IEC 18013-5 Annex D
//                 DeviceResponse, 3.5 KB)
//   Synthetic200k Benchmarks/Fixtures/synthetic-200k.cbor (scripts/gen-synthetic-cbor.py: a 150 KB
//                 byte string plus a map of 5,000 small entries, 203 KB)
//
// decode: CBOR.decode(bytes) with the default strict options (validity checks on, limits on).
// encode: value.encodedBytes(options: .deterministic) of the decoded value (keys sorted, shortest forms).
// Metrics: wall clock (ns per operation) and malloc calls per operation.

import Benchmark
import Foundation
import TesseraCBOR

/// The repository root: this file is Benchmarks/CBORBenchmarks/CBORBenchmarks.swift.
private let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

private func fixture(_ relativePath: String) -> Data {
    let url = repositoryRoot.appendingPathComponent(relativePath)
    guard let data = try? Data(contentsOf: url) else {
        fatalError("CBORBenchmarks: cannot read \(url.path)")
    }
    return data
}

private let inputs: [(name: String, bytes: Data)] = [
    ("AnnexD", fixture("Sources/tessera/Resources/annex-d-device-response.cbor")),
    ("Synthetic200k", fixture("Benchmarks/Fixtures/synthetic-200k.cbor")),
]

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 20,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 50_000
    )
    for (name, bytes) in inputs {
        let value: CBOR
        do {
            value = try CBOR.decode(bytes)
        } catch {
            fatalError("CBORBenchmarks: \(name) does not decode: \(error)")
        }
        let encoded = value.encodedBytes(options: .deterministic)
        // The synthetic input is written in deterministic form, so encoding gives it back.
        if name == "Synthetic200k" && !encoded.elementsEqual(bytes) {
            fatalError("CBORBenchmarks: \(name) does not re-encode to the same \(bytes.count) bytes")
        }

        Benchmark("decode \(name)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try CBOR.decode(bytes))
            }
        }

        Benchmark("encode \(name)", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(value.encodedBytes(options: .deterministic))
            }
        }
    }
}
