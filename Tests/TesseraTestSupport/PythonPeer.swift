import Foundation
import Testing

/// The Python interpreter that runs the interoperability peers (cbor2, pycose, pymdoccbor):
/// `TESSERA_PYTHON`, else `<package root>/.build/pyenv/bin/python3` as `scripts/test` sets it up.
/// Tests that need it fail with `missingMessage` when neither exists; they are never skipped.
public enum PythonPeer {
    public static let missingMessage = "Python peers missing: run scripts/test"

    /// The package root (this file is `Tests/TesseraTestSupport/PythonPeer.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TesseraTestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    public static var interpreter: String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["TESSERA_PYTHON"], !env.isEmpty, fm.isExecutableFile(atPath: env) {
            return env
        }
        let venv = packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path
        return fm.isExecutableFile(atPath: venv) ? venv : nil
    }

    /// A peer kept in `scripts/peers/` (shared with the scripts that drive whole services).
    public static func script(_ name: String) -> URL {
        packageRoot.appendingPathComponent("scripts/peers").appendingPathComponent(name)
    }

    /// How a peer run ended and what it printed.
    public struct Output: Sendable {
        /// The exit status.
        public let status: Int32
        /// Standard output, as bytes.
        public let stdout: Data
        /// Standard error, as text.
        public let stderr: String
    }

    /// Runs the interpreter with `arguments` and waits for it. Without an interpreter it records `missingMessage`
    /// as an issue and returns nil.
    public static func run(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> Output? {
        guard let interpreter else {
            Issue.record("\(missingMessage)", sourceLocation: sourceLocation)
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self))
    }
}
