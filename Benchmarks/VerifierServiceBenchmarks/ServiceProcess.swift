// One `tessera verifier serve` child process: the service measured apart from the load generator (this process),
// optionally pinned to one core with taskset so that "one instance" is one core's worth of machine.

import BenchmarkSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A service instance in its own process (`tessera verifier serve`, or the service floor).
final class ServiceProcess: @unchecked Sendable {
    let process: Process
    /// Where it listens (`http://127.0.0.1:PORT`).
    let url: String
    let port: Int

    /// The release `tessera` the benchmark drives: $TESSERA_BENCH_BIN, else the one `scripts/bench` builds in
    /// Benchmarks/.build/release.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["TESSERA_BENCH_BIN"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/release/tessera").path
    }

    /// The release ServiceFloor beside it (built by `scripts/bench`).
    static var floorBinary: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("ServiceFloor").path
    }

    /// Starts `tessera verifier serve` with `home` as TESSERA_HOME (its client identity lives there, shared by every
    /// instance started with the same home) and waits for its "bound" line.
    convenience init(home: URL, trust: String, database: String, baseURL: String?, core: Int?) throws {
        var arguments = [
            "verifier", "serve", "--port", "0", "--trust", trust, "--database", database, "--lifetime", "3600", "--auto-migrate",
        ]
        if let baseURL { arguments += ["--base-url", baseURL] }
        try self.init(executable: Self.binary, arguments: arguments, environment: ["TESSERA_HOME": home.path], core: core)
    }

    /// Starts `executable` (pinned to `core` with taskset when given) and waits for its "bound URL" line.
    init(executable: String, arguments: [String], environment extra: [String: String], core: Int?) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw BenchmarkFailure("no release build at \(executable): run scripts/bench, or set TESSERA_BENCH_BIN")
        }
        process = Process()
        if let core {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", String(core), executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        // package-benchmark preloads its malloc interposer into this process; the service must run without it.
        environment["LD_PRELOAD"] = nil
        environment["DYLD_INSERT_LIBRARIES"] = nil
        environment.merge(extra) { $1 }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // "bound http://127.0.0.1:PORT": the address this instance listens on (its "listening on" line prints the
        // base URL, which with --base-url is the load balancer's, here the first instance's).
        var buffer = Data()
        var listening: String?
        let deadline = Date().addingTimeInterval(60)
        while listening == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix("bound ") {
                listening = String(line.split(separator: " ").last ?? "")
            }
        }
        guard let listening, let port = URLComponents(string: listening)?.port else {
            process.terminate()
            throw BenchmarkFailure("\(executable) did not start: \(String(decoding: buffer, as: UTF8.self))")
        }
        self.port = port
        url = "http://127.0.0.1:\(port)"
    }

    /// On-CPU time of each of the process's threads, in nanoseconds, from /proc/PID/task/TID/schedstat (its first
    /// field). /proc/PID/stat counts in clock ticks (10 ms), which over one batch of responses is a step of tens of
    /// microseconds per response; schedstat counts nanoseconds. Kept per thread so a thread that exits or starts
    /// during a batch (dispatch's workers come and go) does not carry its whole lifetime into the difference.
    var threadCPUNanoseconds: [String: Int] {
        let tasks = "/proc/\(process.processIdentifier)/task"
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return [:] }
        var times: [String: Int] = [:]
        for thread in threads {
            guard let line = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                let first = line.split(separator: " ").first, let nanoseconds = Int(first)
            else { continue }
            times[thread] = nanoseconds
        }
        return times
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
