import Foundation
import NATSClient

/// nats-server trusting `identity`, on a port it picks itself (`listen: 127.0.0.1:-1`, read back from its log) or on
/// `port` (a restart of the same server: its resolver directory keeps the accounts pushed to it).
public final class OperatorModeServer: Sendable {
    public let url: String
    public let port: Int
    private let process: Process

    public convenience init(identity: NATSOperatorIdentity, directory: URL, port: Int? = nil) throws {
        let resolver = directory.appendingPathComponent("resolver")
        try FileManager.default.createDirectory(at: resolver, withIntermediateDirectories: true)
        try self.init(
            configuration: identity.serverConfiguration(listen: "127.0.0.1:\(port ?? -1)", resolverDirectory: resolver.path), directory: directory)
    }

    /// nats-server with `configuration` as given (e.g. what `tessera ledger nats-config` prints; its `listen` port may
    /// be `-1`), its configuration file and log kept in `directory`.
    public init(configuration: String, directory: URL) throws {
        let binary = [ProcessInfo.processInfo.environment["NATS_SERVER"], "/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let binary else { throw TestFixtureError("nats-server missing: run scripts/test (it installs the Debian package)") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("nats.conf"), log = directory.appendingPathComponent("nats.log")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        // A restart appends to the same log: only what this process writes counts.
        let logged = (try? String(contentsOf: log, encoding: .utf8))?.count ?? 0
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", config.path, "-l", log.path]
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        var found: String?
        while found == nil, Date() < deadline {
            let text = String((try? String(contentsOf: log, encoding: .utf8)) ?? "").dropFirst(logged)
            if let range = text.range(of: "Listening for client connections on ") {
                let rest = text[range.upperBound...].prefix { !$0.isNewline }
                found = "nats://" + rest
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let found else {
            process.terminate()
            throw TestFixtureError("nats-server did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        url = found
        self.port = Int(found.split(separator: ":").last ?? "") ?? 0
    }

    public func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// A test fixture that could not be set up (a missing tool, a server that did not start).
public struct TestFixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
