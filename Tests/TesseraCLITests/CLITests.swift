import Foundation
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
    @Test func demoVerifiesTheAnnexDIssuerSignature() throws {
        let r = try CLI.run(["demo"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("issuerAuth signature: valid"))
        #expect(r.stdout.contains("org.iso.18013.5.1.mDL"))
    }
}
