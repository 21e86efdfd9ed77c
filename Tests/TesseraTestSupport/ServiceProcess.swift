import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `tessera … serve` command as a child process (the executable built beside the test bundle), for tests that kill
/// it with SIGKILL. `start` returns once the service prints `listening on URL`.
public final class ServiceProcess: Sendable {
    public let baseURL: String
    private let process: Process
    /// Everything the process wrote to stdout and stderr so far.
    private let captured: Mutex<Data>

    private init(process: Process, baseURL: String, captured: Data) {
        self.process = process
        self.baseURL = baseURL
        self.captured = Mutex(captured)
    }

    /// What the process printed so far (its log lines among it), for tests that read the log.
    public var output: String { captured.withLock { String(decoding: $0, as: UTF8.self) } }

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The `tessera` executable: `TESSERA_BIN`, else the one in the build directory of the test bundle.
    public static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["TESSERA_BIN"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("tessera")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return URL(fileURLWithPath: ".build/debug/tessera")
    }

    /// Runs `tessera <arguments>` with `environment` added to this process's (less `DATABASE_URL`, so only the
    /// arguments choose the database). `ready` is the start of the line the service prints once it serves (a
    /// service without a URL, such as `tessera vault serve`, has its own); `baseURL` is the rest of that line.
    public static func start(
        _ arguments: [String], environment extra: [String: String] = [:], ready: String = "listening on "
    ) async throws -> ServiceProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DATABASE_URL")
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // The reads block: on a Dispatch thread, not one of the few cooperative ones every suite shares.
        return try await offCooperativePool {
            var seen = ""
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty, !process.isRunning { break }
                seen += String(decoding: chunk, as: UTF8.self)
                if let line = seen.split(separator: "\n").first(where: { $0.hasPrefix(ready) }) {
                    // Keep draining the pipe so the child never blocks on a full one, and keep what it says.
                    let started = ServiceProcess(process: process, baseURL: String(line.dropFirst(ready.count)), captured: Data(seen.utf8))
                    output.fileHandleForReading.readabilityHandler = { [weak started] handle in
                        let chunk = handle.availableData
                        started?.captured.withLock { $0.append(chunk) }
                    }
                    return started
                }
            }
            process.terminate()
            throw StartFailure(description: "tessera \(arguments.prefix(2).joined(separator: " ")) did not start: \(seen)")
        }
    }

    /// The port of `baseURL` (to restart a service where its clients expect it).
    public var port: Int? { URLComponents(string: baseURL)?.port }

    /// SIGKILL: no shutdown, no flush, nothing the process could still do.
    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
