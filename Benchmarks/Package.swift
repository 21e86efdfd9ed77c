// swift-tools-version: 6.1
// Benchmarks for Tessera, kept out of the root package so that `swift build` / `swift test`
// at the root never resolve or build the benchmark tooling.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark
//   scripts/bench-cbor-vs-cbor2        (Tessera vs Python cbor2 on the same bytes)
//   scripts/bench-argon2-vs-cffi       (Argon2id vs argon2-cffi, libargon2 in C, same parameters)
//   scripts/bench-nats-vs-nats-py      (NATSClient vs nats-py against one nats-server)
//   ... benchmark --target VaultBenchmarks   (the vault's E2E request/reply vs raw NATS, users per host)
//
// The benchmark plugin runs every executable target whose folder sits directly in a folder
// named `Benchmarks` (here: this package's own folder).
import PackageDescription

let package = Package(
    name: "TesseraBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Tessera", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
    ],
    targets: [
        // The verifier service's floor as a service (HTTP stack + SQLite + crypto floor), which
        // VerifierServiceBenchmarks runs beside `tessera verifier serve`. Not a benchmark: it lives outside the
        // folders the plugin scans.
        .executableTarget(
            name: "ServiceFloor",
            dependencies: [
                .product(name: "ServiceSupport", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
            ],
            path: "Tools/ServiceFloor"
        ),
        // What the benchmarks below share: CPU-time readings, a setup-failure type, flow and floor run in interleaved
        // pairs, service instances in child processes and batches of requests against them.
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            path: "BenchmarkSupport"
        ),
        // glibc's <malloc.h> for the vault host's heap in use (VaultBenchmarks, Linux only).
        .systemLibrary(name: "CMalloc", path: "CMalloc"),
        // The system zlib for TokenStatusListBenchmarks' floor (compress2 called directly).
        .systemLibrary(name: "CZlibFloor", path: "CZlibFloor"),
        .executableTarget(
            name: "CBORBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TesseraCBOR", package: "Tessera"),
            ],
            path: "CBORBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "MDocBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "MDoc", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
                .product(name: "TesseraCOSE", package: "Tessera"),
                .product(name: "TesseraTrust", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "MDocBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "ProximityBenchmarks",
            dependencies: [
                .product(name: "TesseraTrustTesting", package: "Tessera"),
                .product(name: "ProximityTransportTesting", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "HolderKit", package: "Tessera"),
                .product(name: "VerifierKit", package: "Tessera"),
                .product(name: "ProximityTransport", package: "Tessera"),
                .product(name: "MDoc", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "TesseraTrust", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "ProximityBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "VerifierServiceBenchmarks",
            dependencies: [
                .product(name: "TesseraTrustTesting", package: "Tessera"),
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "VerifierService", package: "Tessera"),
                .product(name: "HolderKit", package: "Tessera"),
                .product(name: "TesseraHTTP", package: "Tessera"),
                .product(name: "HTTPTransport", package: "Tessera"),
                .product(name: "MDoc", package: "Tessera"),
                .product(name: "OpenID4VP", package: "Tessera"),
                .product(name: "SDJWT", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "TesseraTrust", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            path: "VerifierServiceBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "WalletProviderBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "WalletProvider", package: "Tessera"),
                .product(name: "TesseraTrustTesting", package: "Tessera"),
                .product(name: "DeviceAttestation", package: "Tessera"),
                .product(name: "DeviceAttestationTesting", package: "Tessera"),
                .product(name: "Argon2", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Vapor", package: "vapor"),
            ],
            path: "WalletProviderBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "QRBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "TesseraQR", package: "Tessera"),
            ],
            path: "QRBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "SDJWTBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "SDJWT", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "SDJWTBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "TokenStatusListBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                "CZlibFloor",
                .product(name: "TokenStatusList", package: "Tessera"),
                .product(name: "TesseraCOSE", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "TokenStatusListBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "Argon2Benchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "Argon2", package: "Tessera"),
            ],
            path: "Argon2Benchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "NATSBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "NATSClient", package: "Tessera"),
            ],
            path: "NATSBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "LedgerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .product(name: "Ledger", package: "Tessera"),
                .product(name: "LedgerProtocol", package: "Tessera"),
                .product(name: "VaultClient", package: "Tessera"),
                .product(name: "ServiceSupport", package: "Tessera"),
                .product(name: "HolderKit", package: "Tessera"),
                .product(name: "TesseraHTTP", package: "Tessera"),
                .product(name: "HTTPTransport", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
            ],
            path: "LedgerBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        .executableTarget(
            name: "VaultBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                "BenchmarkSupport",
                .target(name: "CMalloc", condition: .when(platforms: [.linux])),
                .product(name: "Vault", package: "Tessera"),
                .product(name: "VaultClient", package: "Tessera"),
                .product(name: "VaultProtocol", package: "Tessera"),
                .product(name: "NATSClient", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
            ],
            path: "VaultBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
