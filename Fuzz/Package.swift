// swift-tools-version: 6.1
// Fuzz targets that need the package's dependencies (swift-crypto, swift-certificates), built
// by SwiftPM with every Swift target instrumented: `scripts/fuzz mdoc-<structure> SECONDS`.
// (Targets over dependency-free modules, like `cbor`, are compiled directly with swiftc.)
import PackageDescription

let package = Package(
    name: "TesseraFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Tessera", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "FuzzMDoc",
            dependencies: [
                .product(name: "MDoc", package: "Tessera"),
                .product(name: "TesseraCBOR", package: "Tessera"),
            ],
            path: "mdoc",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ],
    swiftLanguageModes: [.v6]
)
