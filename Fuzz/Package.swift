// swift-tools-version: 6.1
// Fuzz targets that need the package's dependencies (swift-crypto, swift-certificates), built
// by SwiftPM with every Swift target instrumented: `scripts/fuzz mdoc-<structure> SECONDS`.
// (Targets over dependency-free modules, like `cbor`, are compiled directly with swiftc.)
import PackageDescription

let package = Package(
    name: "TesseraFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Tessera", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.0.0"..<"5.0.0"),
    ],
    targets: [
        // The libFuzzer hand-over, violation reports, structure choice and field reader every target below shares.
        .target(name: "FuzzSupport", path: "support"),
        .executableTarget(
            name: "FuzzMDoc",
            dependencies: [
                "FuzzSupport",
                .product(name: "MDoc", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
            ],
            path: "mdoc",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzJOSE",
            dependencies: [
                "FuzzSupport",
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "jose",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzSDJWT",
            dependencies: [
                "FuzzSupport",
                .product(name: "SDJWT", package: "Tessera"),
                .product(name: "TokenStatusList", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
                .product(name: "TesseraCOSE", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "sdjwt",
            exclude: ["seeds", "crashes"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzOpenID4VP",
            dependencies: [
                "FuzzSupport",
                .product(name: "OpenID4VP", package: "Tessera"),
                .product(name: "TesseraHTTP", package: "Tessera"),
                .product(name: "SDJWT", package: "Tessera"),
                .product(name: "MDoc", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
            ],
            path: "oid4vp",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzAttestation",
            dependencies: [
                "FuzzSupport",
                .product(name: "DeviceAttestation", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "attestation",
            exclude: ["seeds"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzNATS",
            dependencies: ["FuzzSupport", .product(name: "NATSClient", package: "Tessera")],
            path: "nats",
            exclude: ["seeds"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzLedger",
            dependencies: [
                "FuzzSupport",
                .product(name: "LedgerProtocol", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "ledger",
            exclude: ["seeds"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzVault",
            dependencies: [
                "FuzzSupport",
                .product(name: "VaultProtocol", package: "Tessera"),
                .product(name: "TesseraJOSE", package: "Tessera"),
                .product(name: "TesseraCore", package: "Tessera"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "vault",
            exclude: ["seeds"],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
