// swift-tools-version: 6.1
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
        .library(name: "MDoc", targets: ["MDoc"]),
        .library(name: "ProximityTransport", targets: ["ProximityTransport"]),
        .library(name: "HolderKit", targets: ["HolderKit"]),
        .library(name: "VerifierKit", targets: ["VerifierKit"]),
        .library(name: "SDJWT", targets: ["SDJWT"]),
        .executable(name: "tessera", targets: ["tessera"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.0"),
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
        .target(name: "TesseraQR", exclude: ["README.md"]),
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
        .target(
            name: "SDJWT",
            dependencies: [
                "TesseraCore",
                "TesseraJOSE",
                "TesseraTrust",
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        .target(name: "ProximityTransport", exclude: ["README.md"]),
        // Layer 2: orchestration (one long-lived orchestrator, single-use sessions).
        .target(
            name: "HolderKit",
            dependencies: [
                "TesseraCore", "TesseraCBOR", "TesseraCOSE", "TesseraTrust", "TesseraQR", "MDoc", "ProximityTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "VerifierKit",
            dependencies: [
                "TesseraCore", "TesseraCBOR", "TesseraCOSE", "TesseraTrust", "MDoc", "ProximityTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            exclude: ["README.md"]
        ),
        // The one CLI.
        .executableTarget(
            name: "tessera",
            dependencies: [
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
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/annex-d-device-response.cbor")]
        ),
        // Helpers shared by the test targets (hex literals, the Python peer interpreter).
        .target(name: "TesseraTestSupport", dependencies: ["TesseraJOSE"], path: "Tests/TesseraTestSupport"),
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
            dependencies: [
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
            dependencies: [
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
            dependencies: [
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
            dependencies: [
                "TesseraTestSupport", "HolderKit", "VerifierKit", "ProximityTransport", "MDoc", "TesseraTrust",
                "TesseraCore", "TesseraCBOR", "TesseraCOSE",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ProximityTransportTests",
            dependencies: ["ProximityTransport", "TesseraTestSupport"]
        ),
        .testTarget(
            name: "TesseraQRTests",
            dependencies: ["TesseraQR", "TesseraTestSupport", "TesseraCore"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "SDJWTTests",
            dependencies: [
                "TesseraTestSupport",
                "SDJWT",
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
            name: "TesseraCLITests",
            dependencies: ["tessera", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
