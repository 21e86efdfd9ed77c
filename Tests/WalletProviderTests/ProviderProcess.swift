import Foundation
import Synchronization

/// `tessera provider serve` as a child process (the executable built beside the test bundle), for tests that
/// kill it with SIGKILL. `start` returns once the provider prints the address it listens on.
final class ProviderProcess: Sendable {
    let baseURL: String
    private let process: Process

    private init(process: Process, baseURL: String) {
        self.process = process
        self.baseURL = baseURL
    }

    /// The `tessera` executable: `TESSERA_BIN`, else the one in the build directory of the test bundle.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["TESSERA_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("tessera")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: ".build/debug/tessera")
    }

    static func start(_ arguments: [String], home: URL) async throws -> ProviderProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = ["provider", "serve", "--port", "0"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_HOME"] = home.path
        environment.removeValue(forKey: "DATABASE_URL")
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let seen = Mutex("")
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty, !process.isRunning { break }
            let text = seen.withLock { $0 += String(decoding: chunk, as: UTF8.self); return $0 }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                // Keep draining the pipe so the child never blocks on a full one.
                let handle = output.fileHandleForReading
                handle.readabilityHandler = { _ = $0.availableData }
                return ProviderProcess(process: process, baseURL: String(line.dropFirst("listening on ".count)))
            }
        }
        process.terminate()
        throw FixtureError("tessera provider serve did not start: \(seen.withLock { $0 })")
    }

    /// SIGKILL: no shutdown, no flush, nothing the process could still do.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
