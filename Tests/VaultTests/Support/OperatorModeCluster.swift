import Foundation
import NATSClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import TesseraCore
import TesseraTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Three nats-server nodes trusting `identity`, routed to each other (full mesh). Each node has its own full
/// resolver preloaded with the one system account they share, so an account pushed to one node reaches the others
/// over the routes (each resolver answers the push), and a node missing one looks it up from its peers.
final class OperatorModeCluster: Sendable {
    struct Node: Sendable {
        let name: String
        let port: Int
        /// nats-server's monitoring endpoint (`/connz` lists the clients connected to this node).
        let monitorPort: Int
        let process: Process
        let log: URL
        var url: String { "nats://127.0.0.1:\(port)" }
    }

    let nodes: [Node]
    let identity: NATSOperatorIdentity

    var urls: [String] { nodes.map(\.url) }

    /// Starts n1, then n2 and n3 with a route to n1 (the seed): the nodes tell each other about their routes and
    /// form a full mesh, so n2 and n3 stay connected when n1 dies. Every port is picked by nats-server itself
    /// (`-1`) and read back from its log, so nothing else can take one in between.
    init(identity: NATSOperatorIdentity, directory: URL) async throws {
        guard let binary = [ProcessInfo.processInfo.environment["NATS_SERVER"], "/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .compactMap({ $0 }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { throw TestFixtureError("nats-server missing: run scripts/test (it installs the Debian package)") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var nodes: [Node] = []
        var seed: Int?
        do {
            for index in 0..<3 {
                let name = "n\(index + 1)"
                let resolver = directory.appendingPathComponent("resolver-\(name)")
                try FileManager.default.createDirectory(at: resolver, withIntermediateDirectories: true)
                let routes = seed.map { "routes: [\"nats-route://127.0.0.1:\($0)\"]" } ?? ""
                let config = identity.serverConfiguration(listen: "127.0.0.1:-1", resolverDirectory: resolver.path) + """
                    server_name: "\(name)"
                    http: "127.0.0.1:-1"
                    cluster: {
                      name: "tessera-vault"
                      listen: "127.0.0.1:-1"
                      \(routes)
                    }

                    """
                let file = directory.appendingPathComponent("\(name).conf"), log = directory.appendingPathComponent("\(name).log")
                try config.write(to: file, atomically: true, encoding: .utf8)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = ["-c", file.path, "-l", log.path]
                try process.run()
                do {
                    let client = try Self.port(in: log, after: "Listening for client connections on ", process: process)
                    let monitor = try Self.port(in: log, after: "Starting http monitor on ", process: process)
                    let route = try Self.port(in: log, after: "Listening for route connections on ", process: process)
                    seed = seed ?? route
                    nodes.append(Node(name: name, port: client, monitorPort: monitor, process: process, log: log))
                } catch {
                    if process.isRunning { process.terminate() }
                    throw error
                }
            }
        } catch {
            for node in nodes where node.process.isRunning { node.process.terminate() }
            throw error
        }
        self.nodes = nodes
        self.identity = identity
        do {
            try await waitUntilRouted()
        } catch {
            stop()
            throw error
        }
    }

    /// The port nats-server logs after `marker` (it logs each listener once it listens).
    private static func port(in log: URL, after marker: String, process: Process) throws -> Int {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: marker) {
                let address = text[range.upperBound...].prefix { !$0.isNewline }
                if let port = address.split(separator: ":").last.flatMap({ Int($0) }) { return port }
            }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFixtureError("nats-server did not log \(marker)…: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }

    /// Every node hears what is published on every other one (the routes are up), checked with the system account.
    private func waitUntilRouted() async throws {
        var clients: [NATSClient] = []
        defer { Task { [clients] in for client in clients { await client.close() } } }
        for node in nodes {
            let deadline = ContinuousClock.now + .seconds(30)
            while true {
                let client = NATSClient(options: try NATSClientOptions(
                    urls: [node.url], name: "cluster-probe",
                    authentication: .credentials(try identity.systemUser(random: SystemRandomSource(), clock: SystemClock()))))
                do {
                    try await client.connect()
                    clients.append(client)
                    break
                } catch {
                    if ContinuousClock.now > deadline {
                        let log = (try? String(contentsOf: node.log, encoding: .utf8)) ?? ""
                        throw TestFixtureError("\(node.name) does not accept connections: \(error)\n\(log.suffix(4000))")
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        }
        // One subscription per node, read for the whole check (a cancelled read would end it), then every other
        // node publishes to it until it is heard.
        let heard = Heard()
        var readers: [Task<Void, Never>] = []
        defer { for reader in readers { reader.cancel() } }
        for (index, subscriber) in clients.enumerated() {
            let probe = try await subscriber.subscribe(to: "tessera.cluster-probe.\(index)")
            try await subscriber.flush()
            readers.append(Task {
                do {
                    for try await message in probe { await heard.add("\(index)<" + String(decoding: message.payload, as: UTF8.self)) }
                } catch {}
            })
        }
        for index in clients.indices {
            for (other, publisher) in clients.enumerated() where other != index {
                let deadline = ContinuousClock.now + .seconds(30)
                while await !heard.contains("\(index)<\(other)") {
                    if ContinuousClock.now > deadline { throw TestFixtureError("no route from n\(other + 1) to n\(index + 1)") }
                    try await publisher.publish(Data("\(other)".utf8), to: "tessera.cluster-probe.\(index)")
                    try await publisher.flush()
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
    }

    private actor Heard {
        var all: Set<String> = []
        func add(_ entry: String) { all.insert(entry) }
        func contains(_ entry: String) -> Bool { all.contains(entry) }
    }

    /// The names of the clients connected to node `index` right now (nats-server's `/connz`).
    func connectionNames(_ index: Int) async throws -> [String] {
        guard let url = URL(string: "http://127.0.0.1:\(nodes[index].monitorPort)/connz?limit=4096") else { return [] }
        let (data, _) = try await URLSession.shared.data(from: url)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestFixtureError("/connz of \(nodes[index].name) is not a JSON object")
        }
        return (object["connections"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    /// True once a user of `credentials`' account can connect to every node that runs: the account reached them.
    func accountKnownEverywhere(_ credentials: NATSCredentials) async -> Bool {
        for node in nodes where node.process.isRunning {
            guard var options = try? NATSClientOptions(urls: [node.url], name: "account-probe", authentication: .credentials(credentials))
            else { return false }
            options.maxReconnectAttempts = 0
            let client = NATSClient(options: options)
            do {
                try await client.connect()
                await client.close()
            } catch {
                return false
            }
        }
        return true
    }

    /// SIGKILL: the node gets no chance to close its connections cleanly.
    func kill(_ index: Int) {
        let process = nodes[index].process
        guard process.isRunning else { return }
        sigkill(process.processIdentifier)
        process.waitUntilExit()
    }

    func stop() {
        for node in nodes where node.process.isRunning {
            node.process.terminate()
            node.process.waitUntilExit()
        }
    }
}

private func sigkill(_ pid: pid_t) {
    #if canImport(Glibc)
        _ = Glibc.kill(pid, SIGKILL)
    #elseif canImport(Darwin)
        _ = Darwin.kill(pid, SIGKILL)
    #endif
}
