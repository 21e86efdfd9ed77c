import Foundation
import TesseraTestSupport
import Testing

/// Runs the built `tessera` binary as a user would.
struct CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static var binary: URL {
        // The test bundle sits in the build products directory, next to the executable.
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let direct = products.appendingPathComponent("tessera")
        if FileManager.default.isExecutableFile(atPath: direct.path) { return direct }
        return products.deletingLastPathComponent().appendingPathComponent("tessera")
    }

    /// `run` off the cooperative threads (see `offCooperativePool`), for async tests.
    static func runAsync(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) async throws -> Result {
        try await offCooperativePool { try run(arguments, stdin: stdin, environment: environment) }
    }

    static func run(_ arguments: [String], stdin: Data? = nil, environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
            stderr: String(decoding: stderrData, as: UTF8.self))
    }
}

@Suite struct CBORDiagCommandTests {
    @Test func printsDiagnosticNotationFromHex() throws {
        let r = try CLI.run(["cbor", "diag", "--hex", "a2 6161 01 6162 820203"])
        #expect(r.status == 0)
        #expect(r.stdout == "{\"a\": 1, \"b\": [2, 3]}\n")
    }

    @Test func readsStandardInputAndFiles() throws {
        let bytes = Data([0x83, 0x01, 0x02, 0x03])
        let r = try CLI.run(["cbor", "diag", "-"], stdin: bytes)
        #expect(r.status == 0 && r.stdout == "[1, 2, 3]\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-diag-\(UUID()).cbor")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let f = try CLI.run(["cbor", "diag", file.path])
        #expect(f.status == 0 && f.stdout == "[1, 2, 3]\n")
    }

    @Test func malformedInputExitsOneWithTheOffset() throws {
        let r = try CLI.run(["cbor", "diag", "--hex", "8201ff"])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(r.stderr.contains("byte offset 2"))
    }

    @Test func deterministicFlagRejectsUnsortedKeys() throws {
        #expect(try CLI.run(["cbor", "diag", "--hex", "a2020001 00"]).status == 0)
        let r = try CLI.run(["cbor", "diag", "--deterministic", "--hex", "a2020001 00"])
        #expect(r.status == 1 && r.stderr.contains("byte offset 3"))
    }

    @Test func badHexIsAUserError() throws {
        let r = try CLI.run(["cbor", "diag", "--hex", "0g"])
        #expect(r.status == 1 && r.stderr.contains("not a hex digit"))
    }
}

@Suite struct DemoCommandTests {
    /// The lines from the Annex D heading to the end.
    static func annexDSection(_ stdout: String) -> [Substring] {
        let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("== ISO/IEC 18013-5 Annex D") }) else { return [] }
        return Array(lines[start...])
    }

    /// The story first (the presentations), then a short Annex D summary that still says
    /// `issuerAuth signature: valid` (CI greps for it) without the diagnostic notation.
    @Test func demoLeadsWithThePresentationsAndEndsWithAShortAnnexDCheck() throws {
        let r = try CLI.run(["demo"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let firstSection = lines.firstIndex { $0.hasPrefix("== ") }
        #expect(firstSection.map { $0 < 5 } == true, "the first presentation starts within the first lines")
        #expect(firstSection.map { lines[$0].contains("proximity presentation") } == true)
        let annexD = Self.annexDSection(r.stdout)
        #expect(annexD.contains("issuerAuth signature: valid"))
        #expect(annexD.contains { $0.contains("document org.iso.18013.5.1.mDL") })
        #expect(annexD.count <= 8, "\(annexD.joined(separator: "\n"))")
        #expect(!r.stdout.contains("MobileSecurityObject"))
        for heading in ["== The same across two processes", "== Remote presentation: OpenID4VP", "== IT-Wallet:", "== Personal vault:"] {
            #expect(r.stdout.contains(heading), "\(heading)")
        }
    }

    @Test func annexDFlagPrintsTheDiagnosticNotation() throws {
        let r = try CLI.run(["demo", "--annex-d"])
        #expect(r.status == 0, "\(r.stderr)")
        let annexD = Self.annexDSection(r.stdout)
        #expect(annexD.contains("MobileSecurityObject (issuerAuth payload, tag 24):"))
        #expect(annexD.contains("DeviceResponse, 3562 bytes:"))
        #expect(annexD.contains { $0.contains(#""elementIdentifier": "family_name""#) })
        #expect(annexD.contains("issuerAuth signature: valid"))
    }
}

@Suite struct HelpAndVersionTests {
    @Test func versionPrintsTheReleaseNumber() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0)
        let version = r.stdout.trimmingCharacters(in: .newlines)
        let parts = version.split(separator: ".")
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(r.stdout)")
        #expect(try CLI.run(["--help"]).stdout.contains("Tessera \(version),"), "the help names the same version")
    }

    /// What Tessera is now, not the "mdoc, COSE, CBOR" of its first release.
    @Test func helpSaysWhatTesseraIs() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0)
        let text = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in [
            "Swift toolkit for digital identity wallets", "ISO/IEC 18013-5", "OpenID4VP", "SD-JWT VC", "mdoc",
            "Wallet Provider", "ledger", "vault host", "NATS", "tessera demo", "--version",
        ] {
            #expect(text.contains(phrase), "\(phrase)")
        }
        for subcommand in ["demo", "cbor", "mdoc", "sdjwt", "wallet", "holder", "verifier", "provider", "wallet-instance", "ledger", "vault"] {
            #expect(r.stdout.contains("\n  \(subcommand) "), "\(subcommand)")
        }
        #expect(!text.contains("mdoc, COSE, CBOR"))
    }

    @Test func demoHelpNamesTheAnnexDFlag() throws {
        let r = try CLI.run(["demo", "--help"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("--annex-d"))
    }
}
