// NATSClient against a real nats-server: request-reply round trip and publish throughput, 1 KB payloads.
//
//   cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --target NATSBenchmarks
//   scripts/bench-nats-vs-nats-py      (the same two measurements with nats-py against the same server)
//
// Server: NATS_BENCH_URL (nats://127.0.0.1:PORT) when set, which is how scripts/bench-nats-vs-nats-py runs every
// client against one server; otherwise each benchmark process starts its own /usr/sbin/nats-server (Debian package;
// NATS_SERVER overrides the path) as a child with the plain configuration `listen: 127.0.0.1:<free port>` (no auth,
// no TLS, no JetStream) and stops it at the end.
//
// request-reply: two connections of this process, a requester and a responder (a subscription on `bench.echo`
// whose loop publishes each request's payload back to its reply subject). One iteration = one
// `requester.request(1 KB, to: "bench.echo")`, from the call until the reply is returned: client → server →
// responder → server → client on loopback. The wall clock histogram's p50 is the round trip latency.
// publish: one connection, no subscriber (the server drops what nobody subscribes to, as in `nats bench` with
// publishers only). One iteration = 10,000 `publish(1 KB, to: "bench.pub")` awaited one after another, then
// `flush()` (PING → PONG: the server has read and processed every message). "msgs/s" = 10,000 / that wall time.
// The client keeps each message until a PONG confirms it (its reconnect guarantee); 10,000 KB exceed its 8 MiB
// outbound buffer, so a publisher may wait for a PONG within the batch, as an application would.
// diagnostics (for the breakdown of the round trip; scripts/bench-nats-vs-nats-py skips them), same two connections:
//   "PING-PONG via flush()": requester.flush() alone: client → server → client through the client's actor, the
//     shortest server round trip the API offers (no message, no responder).
//   "echo via publish(replyTo:) + subscription": the round trip without `request`'s machinery (its token, its
//     timeout task): publish with a fixed reply subject the requester subscribes to, then the next message of that
//     subscription.
// "CPU (μs)": process CPU time (all threads, the client's event loop included) of the measured part.
// Goals of issue 12: msgs/s >= nats-py's; p50 round trip <= 1.2 x the best client measured.

import Benchmark
import BenchmarkSupport
import Foundation
import NATSClient

#if canImport(Glibc)
    import Glibc
#endif

private let cpuMicroseconds = BenchmarkMetric.custom("CPU (μs)", polarity: .prefersSmaller, useScalingFactor: false)
private let messagesPerSecond = BenchmarkMetric.custom("msgs/s", polarity: .prefersLarger, useScalingFactor: false)

/// The payload of every message: 1,024 bytes.
private let payload = [UInt8]((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
private let publishBatch = 10_000

// MARK: - Server

/// A nats-server child process on a free loopback port, or the server NATS_BENCH_URL names.
final class NATSServerProcess: Sendable {
    let url: String
    private let process: Process?
    private let directory: URL?

    private init(url: String, process: Process?, directory: URL?) {
        self.url = url
        self.process = process
        self.directory = directory
    }

    static func start() throws -> NATSServerProcess {
        if let url = ProcessInfo.processInfo.environment["NATS_BENCH_URL"], !url.isEmpty {
            return NATSServerProcess(url: url, process: nil, directory: nil)
        }
        let binary = ProcessInfo.processInfo.environment["NATS_SERVER"] ?? "/usr/sbin/nats-server"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchmarkFailure("\(binary) is missing: apt-get install nats-server (or set NATS_SERVER)")
        }
        let port = try freePort()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-nats-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("nats.conf")
        try Data("listen: 127.0.0.1:\(port)\n".utf8).write(to: config)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", config.path]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return NATSServerProcess(url: "nats://127.0.0.1:\(port)", process: process, directory: directory)
    }

    func stop() {
        if let process, process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A port the kernel just handed out on 127.0.0.1 (bound, read back, released).
    private static func freePort() throws -> Int {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw BenchmarkFailure("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { throw BenchmarkFailure("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

// MARK: - World

actor World {
    static let shared = World()

    private var server: NATSServerProcess?
    private(set) var requester: NATSClient?
    /// The requester's subscription to `bench.inbox.echo` (the echo diagnostic), read one message per iteration.
    private(set) var inbox: InboxReader?
    private(set) var publisher: NATSClient?
    private var responder: NATSClient?
    private var responderTask: Task<Void, Never>?

    /// A connected client, retried for up to 10 s while the server starts.
    private func connect(_ url: String, name: String) async throws -> NATSClient {
        var lastError: any Error = BenchmarkFailure("no attempt")
        for _ in 0..<100 {
            let client = NATSClient(options: try NATSClientOptions(urls: [url], name: name))
            do {
                try await client.connect()
                return client
            } catch {
                lastError = error
                await client.close()
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw BenchmarkFailure("cannot connect to \(url): \(lastError)")
    }

    private func startServer() throws -> String {
        let server = try NATSServerProcess.start()
        self.server = server
        return server.url
    }

    /// A requester and a responder echoing every request's payload; one request is checked before anything is timed.
    func startRequestReply() async throws {
        let url = try startServer()
        let responder = try await connect(url, name: "bench-responder")
        self.responder = responder
        let subscription = try await responder.subscribe(to: "bench.echo")
        responderTask = Task {
            do {
                for try await message in subscription {
                    guard let reply = message.replyTo else { continue }
                    try await responder.publish(message.payload, to: reply)
                }
            } catch {}
        }
        try await responder.flush()  // the SUB is registered before the first request
        let requester = try await connect(url, name: "bench-requester")
        self.requester = requester
        let answer = try await requester.request(payload, to: "bench.echo", timeout: .seconds(5))
        guard answer.payload.elementsEqual(payload) else { throw BenchmarkFailure("the echo differs from the request") }
        inbox = InboxReader(try await requester.subscribe(to: "bench.inbox.echo"))
        try await requester.flush()
    }

    func startPublisher() async throws {
        let url = try startServer()
        let publisher = try await connect(url, name: "bench-publisher")
        self.publisher = publisher
        try await publisher.publish(payload, to: "bench.pub")
        try await publisher.flush()
    }

    func shutdown() async {
        responderTask?.cancel()
        await requester?.close()
        await publisher?.close()
        await responder?.close()
        server?.stop()
        (requester, publisher, responder, server, responderTask) = (nil, nil, nil, nil, nil)
    }
}

/// The iterator of one subscription, kept across iterations (the benchmark runs them one after the other).
final class InboxReader: @unchecked Sendable {
    private var iterator: Subscription.AsyncIterator

    init(_ subscription: Subscription) { iterator = subscription.makeAsyncIterator() }

    func next() async throws -> NATSMessage? { try await iterator.next() }
}

// MARK: - Benchmarks

let benchmarks: @Sendable () -> Void = {
    let teardown: @Sendable () async throws -> Void = { await World.shared.shutdown() }

    Benchmark(
        "NATS request-reply round trip (1 KB)",
        configuration: .init(
            metrics: [.wallClock, .throughput, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 500,
            maxDuration: .seconds(5), maxIterations: 20_000,
            setup: { try await World.shared.startRequestReply() }, teardown: teardown)
    ) { benchmark in
        guard let requester = await World.shared.requester else { throw BenchmarkFailure("no requester") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        let answer = try await requester.request(payload, to: "bench.echo")
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
        guard answer.payload.count == payload.count else { throw BenchmarkFailure("short echo") }
    }

    Benchmark(
        "NATS publish 10,000 x 1 KB + flush",
        configuration: .init(
            metrics: [.wallClock, cpuMicroseconds, messagesPerSecond], timeUnits: .milliseconds, warmupIterations: 3,
            maxDuration: .seconds(6), maxIterations: 200,
            setup: { try await World.shared.startPublisher() }, teardown: teardown)
    ) { benchmark in
        guard let publisher = await World.shared.publisher else { throw BenchmarkFailure("no publisher") }
        let clock = ContinuousClock()
        let (start, cpu) = (clock.now, processCPUMicroseconds())
        for _ in 0..<publishBatch {
            try await publisher.publish(payload, to: "bench.pub")
        }
        try await publisher.flush()
        let elapsed = (clock.now - start) / .seconds(1)
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
        benchmark.measurement(messagesPerSecond, Int((Double(publishBatch) / elapsed).rounded()))
    }

    let diagnostic = Benchmark.Configuration(
        metrics: [.wallClock, cpuMicroseconds], timeUnits: .microseconds, warmupIterations: 500, maxDuration: .seconds(4),
        maxIterations: 20_000, setup: { try await World.shared.startRequestReply() }, teardown: teardown)
    Benchmark("NATS diagnostic: PING-PONG via flush()", configuration: diagnostic) { benchmark in
        guard let requester = await World.shared.requester else { throw BenchmarkFailure("no requester") }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await requester.flush()
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
    }
    Benchmark("NATS diagnostic: echo via publish(replyTo:) + subscription (1 KB)", configuration: diagnostic) { benchmark in
        guard let requester = await World.shared.requester, let inbox = await World.shared.inbox else {
            throw BenchmarkFailure("no requester")
        }
        let cpu = processCPUMicroseconds()
        benchmark.startMeasurement()
        try await requester.publish(payload, to: "bench.echo", replyTo: "bench.inbox.echo")
        let answer = try await inbox.next()
        benchmark.stopMeasurement()
        benchmark.measurement(cpuMicroseconds, processCPUMicroseconds() - cpu)
        guard answer?.payload.count == payload.count else { throw BenchmarkFailure("short echo") }
    }
}
