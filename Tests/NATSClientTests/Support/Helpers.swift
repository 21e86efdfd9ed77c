import Foundation
import NATSClient
import Testing

struct TimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out: \(what)" }
}

/// Runs `operation`, failing with `TimedOut` after `limit`.
func withTimeout<T: Sendable>(
    _ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimedOut(what: what) }
        return value
    }
}

/// The next `count` messages of `subscription`.
func collect(_ subscription: Subscription, count: Int, within limit: Duration = .seconds(10)) async throws -> [NATSMessage] {
    try await withTimeout(limit, "\(count) messages on \(subscription.subject)") {
        var messages: [NATSMessage] = []
        for try await message in subscription {
            messages.append(message)
            if messages.count == count { break }
        }
        return messages
    }
}

/// Waits for the first event that `matches`.
func waitForEvent(
    _ events: AsyncStream<NATSEvent>, within limit: Duration = .seconds(15), _ matches: @escaping @Sendable (NATSEvent) -> Bool
) async throws -> NATSEvent {
    try await withTimeout(limit, "event") {
        for await event in events where matches(event) { return event }
        throw TimedOut(what: "event stream ended")
    }
}

/// A connected client for `credentials` on `urls`.
func connectedClient(
    _ urls: [String], _ credentials: NATSCredentials, configure: (inout NATSClientOptions) -> Void = { _ in }
) async throws -> NATSClient {
    var options = try NATSClientOptions(urls: urls, authentication: .credentials(credentials))
    configure(&options)
    let client = NATSClient(options: options)
    try await client.connect()
    return client
}

/// The Python interpreter with the peers (nkeys, nats-py): `TESSERA_PYTHON`, else `<package root>/.build/pyenv`.
enum PeerPython {
    static let missingMessage = "Python peers missing: run scripts/test"

    static var interpreter: String? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["TESSERA_PYTHON"], !env.isEmpty, fm.isExecutableFile(atPath: env) {
            return env
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let venv = root.appendingPathComponent(".build/pyenv/bin/python3").path
        return fm.isExecutableFile(atPath: venv) ? venv : nil
    }

    static var script: URL? { Bundle.module.url(forResource: "nats_peer", withExtension: "py", subdirectory: "Fixtures") }
}
