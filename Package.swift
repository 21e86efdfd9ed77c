// swift-tools-version: 6.2
import PackageDescription

// Layering: see ARCHITECTURE.md (module map). Dependencies point down only.
let package = Package(
    name: "Tessera",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "TesseraCore", targets: ["TesseraCore"]),
        .library(name: "TesseraCBOR", targets: ["TesseraCBOR"]),
        .library(name: "TesseraCOSE", targets: ["TesseraCOSE"]),
        .library(name: "TesseraTrust", targets: ["TesseraTrust"]),
        .library(name: "TesseraQR", targets: ["TesseraQR"]),
        .library(name: "TesseraJOSE", targets: ["TesseraJOSE"]),
        .library(name: "TesseraHTTP", targets: ["TesseraHTTP"]),
        .library(name: "HTTPTransport", targets: ["HTTPTransport"]),
        .library(name: "MDoc", targets: ["MDoc"]),
        .library(name: "ProximityTransport", targets: ["ProximityTransport"]),
        .library(name: "ProximitySession", targets: ["ProximitySession"]),
        // Testing products (in the manner of NIOEmbedded): what tests, benchmarks, the CLI and the demo use and an
        // app need not link.
        .library(name: "ProximityTransportTesting", targets: ["ProximityTransportTesting"]),
        .library(name: "NATSClientTesting", targets: ["NATSClientTesting"]),
        .library(name: "TesseraTrustTesting", targets: ["TesseraTrustTesting"]),
        .library(name: "DeviceAttestationTesting", targets: ["DeviceAttestationTesting"]),
        .library(name: "WalletInstanceKitTesting", targets: ["WalletInstanceKitTesting"]),
        .library(name: "HolderKit", targets: ["HolderKit"]),
        .library(name: "VerifierKit", targets: ["VerifierKit"]),
        .library(name: "TokenStatusList", targets: ["TokenStatusList"]),
        .library(name: "SDJWT", targets: ["SDJWT"]),
        .library(name: "OpenID4VP", targets: ["OpenID4VP"]),
        .library(name: "VerifierService", targets: ["VerifierService"]),
        .library(name: "Argon2", targets: ["Argon2"]),
        .library(name: "DeviceAttestation", targets: ["DeviceAttestation"]),
        .library(name: "WalletInstanceKit", targets: ["WalletInstanceKit"]),
        .library(name: "WalletProvider", targets: ["WalletProvider"]),
        .library(name: "NATSClient", targets: ["NATSClient"]),
        .library(name: "LedgerProtocol", targets: ["LedgerProtocol"]),
        .library(name: "ITWalletProtocol", targets: ["ITWalletProtocol"]),
        .library(name: "Ledger", targets: ["Ledger"]),
        .library(name: "VaultClient", targets: ["VaultClient"]),
        .library(name: "VaultProtocol", targets: ["VaultProtocol"]),
        .library(name: "Vault", targets: ["Vault"]),
        .library(name: "ServiceSupport", targets: ["ServiceSupport"]),
        .executable(name: "tessera", targets: ["tessera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.0"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // The DocC catalogs are built by `scripts/docs` (`swift package generate-documentation`); a command plugin
        // only, so no target links it and `swift build` does not build it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Layer 0: encodings and the injected clock and randomness.
        .target(name: "TesseraCore", exclude: ["README.md"]),
        .target(name: "TesseraCBOR", exclude: ["README.md"]),
        .target(
            name: "TesseraCOSE",
            dependencies: [
                "TesseraCBOR",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "TesseraTrust",
            dependencies: [
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            exclude: ["README.md"]
        ),
        // Test PKIs: ISO 18013-5 IACA / document signer / reader certificates and generic x5c chains (testing product).
        .target(
            name: "TesseraTrustTesting",
            dependencies: [
                "TesseraTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["README.md"]
        ),
        .target(name: "TesseraQR", exclude: ["README.md"]),
        // RFC 9106 Argon2id/Argon2i/Argon2d with BLAKE2b (RFC 7693), pure Swift.
        .target(name: "Argon2", dependencies: ["TesseraCore"], exclude: ["README.md"]),
        .target(
            name: "TesseraJOSE",
            dependencies: [
                "TesseraCore",
                "TesseraTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        // Layer 1: formats.
        .target(
            name: "MDoc",
            dependencies: [
                "TesseraCore",
                "TesseraCBOR",
                "TesseraCOSE",
                "TesseraTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        // System zlib (RFC 1950/1951) for the Token Status List `lst` (draft-ietf-oauth-status-list §4.1).
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // Token Status List (draft-ietf-oauth-status-list): the list, its JWT and CWT tokens, the Referenced Token's
        // `status` claim; both the issuing and the reading side.
        .target(
            name: "TokenStatusList",
            dependencies: [
                "TesseraCore",
                "TesseraCBOR",
                "TesseraCOSE",
                "TesseraJOSE",
                "TesseraTrust",
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "SDJWT",
            dependencies: [
                "TesseraCore",
                "TesseraJOSE",
                "TesseraTrust",
                "TokenStatusList",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        // OpenID4VP 1.0 holder side (request parsing and resolution, DCQL, responses) and verifier-side helpers.
        // HTTP values, the client protocol and form encoding (layer 0, Foundation only); the async-http-client
        // transport beside it, so that a module that only builds requests does not link SwiftNIO.
        .target(name: "TesseraHTTP", exclude: ["README.md"]),
        .target(
            name: "HTTPTransport",
            dependencies: [
                "TesseraHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "OpenID4VP",
            dependencies: [
                "TesseraCore",
                "TesseraHTTP",
                "TesseraCBOR",
                "TesseraCOSE",
                "TesseraJOSE",
                "TesseraTrust",
                "MDoc",
                "SDJWT",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["README.md"]
        ),
        // API doubles of the Apple frameworks the platform adapters use (CoreBluetooth, DeviceCheck), so those adapters
        // compile and are tested where the frameworks are absent. Their sources are empty on Apple platforms, where
        // the real frameworks are imported instead. Internal plumbing: no product exports them.
        // CoreBluetooth's classes carry no Sendable annotations; like that Objective-C framework, the double has not
        // adopted Swift concurrency checking (Swift 5 mode), so `@preconcurrency import` treats both alike. It is
        // written to compile cleanly in the Swift 6 mode too.
        .target(
            name: "CoreBluetoothDouble", path: "Sources/AppleFrameworkDoubles/CoreBluetoothDouble",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(name: "DeviceCheckDouble", path: "Sources/AppleFrameworkDoubles/DeviceCheckDouble"),
        
        .target(name: "ProximityTransport", dependencies: ["TesseraCore", "CoreBluetoothDouble"], exclude: ["README.md"]),
        // The simulated radio: a GATT radio in memory with MTU, latency and fault injection (testing product).
        .target(name: "ProximityTransportTesting", dependencies: ["ProximityTransport", "TesseraCore"], exclude: ["README.md"]),
        // What the holder's and the reader's single-use sessions share (state table, sealed setters, release).
        .target(name: "ProximitySession", dependencies: ["ProximityTransport", "TesseraCore"], exclude: ["README.md"]),
        // Apple App Attest and Android Key Attestation verification (and a test authority for Android chains).
        .target(
            name: "DeviceAttestation",
            dependencies: [
                "TesseraCore", "TesseraCBOR", "TesseraCOSE", "TesseraTrust",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["README.md"]
        ),
        // Test attestation authorities: App Attest objects and assertions, Android key attestation chains and
        // Play-Integrity-shaped tokens under a test root (testing product).
        .target(
            name: "DeviceAttestationTesting",
            dependencies: [
                "DeviceAttestation", "TesseraCore", "TesseraCBOR", "TesseraCOSE", "TesseraJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            exclude: ["README.md"]
        ),
        // Layer 2: orchestration (one long-lived orchestrator, single-use sessions).
        .target(
            name: "HolderKit",
            dependencies: [
                "TesseraCore", "TesseraCBOR", "TesseraCOSE", "TesseraTrust", "TesseraQR", "MDoc", "ProximityTransport",
                "ProximitySession", "TesseraJOSE", "SDJWT", "OpenID4VP",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "VerifierKit",
            dependencies: [
                "TesseraCore", "TesseraCBOR", "TesseraCOSE", "TesseraTrust", "MDoc", "ProximityTransport", "ProximitySession",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "WalletInstanceKit",
            dependencies: [
                "TesseraCore", "TesseraCOSE", "TesseraJOSE", "TesseraHTTP", "DeviceAttestation", "HolderKit", "MDoc",
                "ITWalletProtocol", "TesseraTrust", "TokenStatusList", "SDJWT",
                "DeviceCheckDouble",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        // Device Integrity Services for Linux and tests: keys in a KeyStore, attested by DeviceAttestationTesting
        // (testing product).
        .target(
            name: "WalletInstanceKitTesting",
            dependencies: [
                "WalletInstanceKit", "DeviceAttestationTesting", "DeviceAttestation", "HolderKit", "MDoc", "TesseraCore",
                "TesseraCOSE", "TesseraJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        // Layer 3: services. ServiceSupport is what they share (database choice, wire errors, JSON bodies).
        .target(
            name: "ServiceSupport",
            dependencies: [
                "TesseraJOSE", "TesseraCore", "TesseraHTTP", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "WalletProvider",
            dependencies: [
                "TesseraCore", "TesseraJOSE", "TesseraQR", "Argon2", "DeviceAttestation", "ServiceSupport", "ITWalletProtocol",
                "TesseraTrust", "TesseraCBOR", "TesseraCOSE", "MDoc", "SDJWT", "TokenStatusList",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
            ],
            exclude: ["README.md"]
        ),
        // The in-process NATS bus (operator-mode accounts, permissions, revocation) of the demo and the tests.
        .target(name: "NATSClientTesting", dependencies: ["NATSClient", "TesseraCore", .product(name: "Crypto", package: "swift-crypto")], exclude: ["README.md"]),
        // NATS client protocol on SwiftNIO, nkeys and operator-mode JWTs (layer 1).
        .target(
            name: "NATSClient",
            dependencies: [
                "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            exclude: ["README.md"]
        ),
        // The ledger's wire constructions (Seal, AAD, LAT proof, device signature, KDF parameters): layer 1.
        .target(
            name: "LedgerProtocol",
            dependencies: ["TesseraCore", "TesseraJOSE", "Argon2", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["README.md"]
        ),
        .target(
            name: "ITWalletProtocol",
            dependencies: ["TesseraJOSE", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["README.md"]
        ),
        // What the vault host and the app share: subjects, E2E session, envelope, handler payloads (layer 1).
        .target(
            name: "VaultProtocol",
            dependencies: ["TesseraCore", "TesseraJOSE", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["README.md"]
        ),
        .target(
            name: "VaultClient",
            dependencies: [
                "TesseraCore", "TesseraJOSE", "TesseraHTTP", "LedgerProtocol", "VaultProtocol", "NATSClient",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"]
        ),
        // The vault host: many users' vaults over NATS, storage encrypted at rest, leases (layer 3).
        .target(
            name: "Vault",
            dependencies: [
                "TesseraCore", "TesseraJOSE", "VaultProtocol", "ServiceSupport", "NATSClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "Ledger",
            dependencies: [
                "TesseraCore", "TesseraJOSE", "LedgerProtocol", "ServiceSupport", "NATSClient",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "VerifierService",
            dependencies: [
                "TesseraCore", "TesseraCBOR", "TesseraJOSE", "TesseraTrust", "TesseraQR", "MDoc", "SDJWT", "OpenID4VP", "ServiceSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
            ],
            exclude: ["README.md"],
            resources: [.copy("Public")]
        ),
        // The one CLI.
        .executableTarget(
            name: "tessera",
            dependencies: [ "WalletInstanceKitTesting", "DeviceAttestationTesting", "TesseraTrustTesting", "NATSClientTesting", "ProximityTransportTesting",
                "TesseraCore",
                "TesseraCBOR",
                "TesseraCOSE",
                "TesseraTrust",
                "MDoc",
                "TesseraQR",
                "ProximityTransport",
                "HolderKit",
                "VerifierKit",
                "TesseraJOSE",
                "SDJWT",
                "TokenStatusList",
                "OpenID4VP",
                "TesseraHTTP",
                "HTTPTransport",
                "VerifierService",
                "DeviceAttestation",
                "ServiceSupport",
                "WalletInstanceKit",
                "ITWalletProtocol",
                "WalletProvider",
                "Argon2",
                "LedgerProtocol",
                "Ledger",
                "VaultClient",
                "VaultProtocol",
                "Vault",
                "NATSClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/annex-d-device-response.cbor")]
        ),
        // Helpers shared by the test targets (hex literals, the Python peer interpreter, an App Attest device for the
        // DeviceCheck double).
        .target(
            name: "TesseraTestSupport",
            dependencies: [ "DeviceAttestationTesting",
                "TesseraJOSE", "TesseraHTTP", "NATSClient", "DeviceAttestation", "DeviceCheckDouble", "ProximityTransport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TesseraTestSupport"
        ),
        .testTarget(
            name: "TesseraCBORTests",
            dependencies: [
                "TesseraCBOR",
                "TesseraTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TesseraCOSETests",
            dependencies: [
                "TesseraTestSupport",
                "TesseraCBOR",
                "TesseraCOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TesseraTrustTests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraTestSupport",
                "TesseraTrust",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TesseraJOSETests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraTestSupport",
                "TesseraJOSE",
                "TesseraTrust",
                "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "MDocTests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraTestSupport",
                "MDoc",
                "TesseraTrust",
                "TesseraCore",
                "TesseraCBOR",
                "TesseraCOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ProximityTests",
            dependencies: [ "TesseraTrustTesting", "ProximityTransportTesting",
                "TesseraTestSupport", "HolderKit", "VerifierKit", "ProximityTransport", "CoreBluetoothDouble", "MDoc", "TesseraTrust",
                "TesseraCore", "TesseraCBOR", "TesseraCOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ProximityTransportTests",
            dependencies: [ "ProximityTransportTesting","ProximityTransport", "TesseraTestSupport"]
        ),
        // The CoreBluetooth adapters and the App Attest integrity service driven through the framework doubles the
        // way iOS drives them (delegate order, back-pressure, power and permission states).
        .testTarget(
            name: "AppleAdapterTests",
            dependencies: [ "DeviceAttestationTesting",
                "ProximityTransport", "CoreBluetoothDouble", "DeviceCheckDouble", "WalletInstanceKit", "DeviceAttestation",
                "TesseraTestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "TesseraQRTests",
            dependencies: ["TesseraQR", "TesseraTestSupport", "TesseraCore"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "TokenStatusListTests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraTestSupport",
                "TokenStatusList",
                "TesseraCBOR",
                "TesseraCOSE",
                "TesseraJOSE",
                "TesseraTrust",
                "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SDJWTTests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraTestSupport",
                "SDJWT",
                "TokenStatusList",
                "TesseraJOSE",
                "TesseraTrust",
                "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "OpenID4VPTests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraHTTP", "HTTPTransport",
                "TesseraTestSupport",
                "OpenID4VP",
                "HolderKit",
                "SDJWT",
                "TesseraCore",
                "TesseraCBOR",
                "TesseraCOSE",
                "TesseraJOSE",
                "TesseraTrust",
                "MDoc",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "VerifierServiceTests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraHTTP", "HTTPTransport",
                "TesseraTestSupport", "VerifierService", "HolderKit", "OpenID4VP", "SDJWT", "TokenStatusList", "MDoc", "TesseraJOSE", "TesseraCore",
                "TesseraTrust", "TesseraCBOR",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "Argon2Tests",
            dependencies: ["Argon2"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "DeviceAttestationTests",
            dependencies: [ "DeviceAttestationTesting",
                "TesseraTestSupport", "DeviceAttestation", "TesseraCore", "TesseraCBOR", "TesseraTrust", "TesseraJOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "WalletProviderTests",
            dependencies: [ "WalletInstanceKitTesting", "DeviceAttestationTesting", "TesseraTrustTesting", "ITWalletProtocol",
                "TesseraHTTP", "HTTPTransport",
                "TesseraTestSupport", "WalletProvider", "WalletInstanceKit", "DeviceAttestation", "ServiceSupport", "Argon2",
                "HolderKit", "OpenID4VP", "TesseraJOSE", "TesseraCore", "SDJWT", "MDoc", "TesseraCBOR", "TesseraCOSE",
                "TesseraTrust", "TokenStatusList",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Vapor", package: "vapor"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "NATSClientTests",
            dependencies: [ "NATSClientTesting",
                "NATSClient", "TesseraCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "LedgerTests",
            dependencies: [
                "TesseraHTTP", "HTTPTransport",
                "TesseraTestSupport", "Ledger", "LedgerProtocol", "VaultClient", "NATSClient", "ServiceSupport", "Argon2", "OpenID4VP", "TesseraJOSE",
                "TesseraCore", "HolderKit", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "VaultProtocolTests",
            dependencies: ["VaultProtocol", "TesseraJOSE", "TesseraCore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "VaultTests",
            dependencies: [ "NATSClientTesting",
                "TesseraHTTP", "HTTPTransport",
                "TesseraTestSupport", "Vault", "VaultProtocol", "VaultClient", "Ledger", "LedgerProtocol", "NATSClient",
                "ServiceSupport", "TesseraJOSE", "TesseraCore", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "TesseraCLITests",
            dependencies: [ "TesseraTrustTesting",
                "TesseraHTTP", "HTTPTransport",
                "tessera", "TesseraTestSupport", "TesseraTrust", "TesseraJOSE", "HolderKit", "OpenID4VP",
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Zero warnings in Tessera's own targets (issue 26): a warning is an error here. SE-0443 warning control applies to
// this package only; a package that depends on Tessera (the benchmarks, the fuzz targets, an app) is not affected.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
}
