// TesseraQR encode and render benchmarks (package-benchmark).
//
//   cd Benchmarks && swift package benchmark --target QRBenchmarks
//
// Inputs: the ISO 18013-5 Annex D.3.1 DeviceEngagement as an `mdoc:` URI (160 bytes, version 9 at ECC M),
// a 100-byte prefix of it (the size the task budget names: well under a millisecond at ECC M), and a
// 2,300-byte payload that needs version 40 at ECC M (the worst case for the mask search).
// Metrics: wall clock (ns per operation) and malloc calls per operation.

import Benchmark
import Foundation
import TesseraQR

/// Annex D.3.1 DeviceEngagement bytes, base64url without padding, behind the `mdoc:` scheme (§8.2.2.3).
private let engagementURI = Array(
    ("mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWojRgrzl9C76WZQ_MzWdLoqWj_KJ2T5fpES2JDQxZ_4iWCCxboz4WN3HaQQHumHUwzgjeoz8"
        + "895qpnL8YKVXqjL8ZwKBgwIBowD0AfULUEXv73QrLEg3qaOw4dBaaRc").utf8)

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        warmupIterations: 20,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 20_000
    )
    let large = [UInt8](repeating: 0x5A, count: 2_300)
    let inputs: [(String, [UInt8])] = [
        ("100B", Array(engagementURI.prefix(100))), ("mdocURI", engagementURI), ("v40", large),
    ]
    for (name, bytes) in inputs {
        Benchmark("encode \(name) M", configuration: configuration) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? QRCode.encode(bytes, level: .medium))
            }
        }
    }
    guard let code = try? QRCode.encode(engagementURI, level: .medium) else { return }
    Benchmark("png mdocURI scale 8", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(code.pngData()) }
    }
    Benchmark("svg mdocURI", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(code.svgString()) }
    }
    Benchmark("terminal mdocURI", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(code.terminalString()) }
    }
}
