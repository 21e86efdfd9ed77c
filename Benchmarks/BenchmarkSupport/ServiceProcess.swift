// One service instance in a child process (`tessera verifier serve`, `tessera provider serve`, `tessera ledger
// serve`, or a floor server): the service measured apart from the load generator (the benchmark process), optionally
// pinned to one core with taskset so that "one instance" is one core's worth of machine.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A service instance in its own process.
public final class ServiceProcess: @unchecked Sendable {
    public let process: Process
    /// Where it listens (`http://127.0.0.1:PORT`).
    public let url: String
    public let port: Int

    /// The release `tessera` the benchmarks drive: $TESSERA_BENCH_BIN, else the one `scripts/bench` builds in
    /// Benchmarks/.build/release.
    public static var binary: String {
        if let path = ProcessInfo.processInfo.environment["TESSERA_BENCH_BIN"], !path.isEmpty { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/release/tessera").path
    }

    /// The release ServiceFloor beside it (built by `scripts/bench`).
    public static var floorBinary: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("ServiceFloor").path
    }

    /// Starts `executable` (pinned to `core` with taskset when given) and waits for the first line that starts with
    /// `ready` and ends with the URL it listens on: "bound http://127.0.0.1:PORT" for the verifier and the floor
    /// (whose "listening on" line prints the base URL, which with --base-url is another instance's), "listening on
    /// http://127.0.0.1:PORT" for the services started without --base-url.
    public init(executable: String, arguments: [String], environment extra: [String: String], core: Int?, ready: String = "bound ") throws {
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
        var buffer = Data()
        var listening: String?
        let deadline = Date().addingTimeInterval(60)
        while listening == nil, Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix(ready) {
                listening = String(line.split(separator: " ").last ?? "")
                break
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
    public var threadCPUNanoseconds: [String: Int] {
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

    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// The core instance `index` of a deployment is pinned to: one each, round the machine's cores.
    public static func core(for index: Int) -> Int { index % max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// Per-thread CPU readings of a set of instances (`ServiceProcess.threadCPUNanoseconds`), to be subtracted.
public struct ServiceCPUReading: Sendable {
    let threads: [[String: Int]]

    public init(_ services: [ServiceProcess]) { threads = services.map(\.threadCPUNanoseconds) }

    /// The CPU time the instances used since `earlier`, in nanoseconds: each thread's growth, a thread that started
    /// in between counted from zero.
    public func nanoseconds(since earlier: ServiceCPUReading) -> Int {
        zip(earlier.threads, threads).reduce(0) { total, instance in
            instance.1.reduce(total) { sum, thread in sum + max(0, thread.value - (instance.0[thread.key] ?? 0)) }
        }
    }
}
