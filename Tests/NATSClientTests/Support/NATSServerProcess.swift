import Foundation
import NATSClient

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum ServerSetupError: Error, CustomStringConvertible {
    case missingBinary
    case notReady(String)
    var description: String {
        switch self {
        case .missingBinary: return "nats-server missing: run scripts/test (it installs the Debian package)"
        case .notReady(let log): return "nats-server did not start listening; log:\n\(log)"
        }
    }
}

/// A real `nats-server` child process in operator mode, with a full (directory) resolver preloaded with the
/// fixture's accounts, optionally one node of a cluster. Stopped when released.
final class NATSServerProcess: @unchecked Sendable {
    let name: String
    let port: Int
    let clusterPort: Int?
    let directory: URL
    private var process: Process?

    var url: String { "nats://127.0.0.1:\(port)" }
    var logURL: URL { directory.appendingPathComponent("\(name).log") }

    static var binary: String? {
        let candidates = [ProcessInfo.processInfo.environment["NATS_SERVER"], "/usr/sbin/nats-server",
                          "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    init(
        name: String = "n1", fixture: OperatorFixture, port: Int? = nil, clusterPort: Int? = nil, routes: [Int] = [],
        directory: URL? = nil, tls: (certificate: URL, key: URL)? = nil
    ) throws {
        self.name = name
        self.port = try port ?? freePort()
        self.clusterPort = clusterPort
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("nats-\(UUID().uuidString)")
        self.directory = dir
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("jwt-\(name)"), withIntermediateDirectories: true)
        try fixture.operatorJWT.write(to: dir.appendingPathComponent("operator.jwt"), atomically: true, encoding: .utf8)
        var config = """
            server_name: "\(name)"
            listen: "127.0.0.1:\(self.port)"
            operator: "\(dir.appendingPathComponent("operator.jwt").path)"
            system_account: "\(fixture.systemAccount.publicKeyString)"
            resolver: {
              type: full
              dir: "\(dir.appendingPathComponent("jwt-\(name)").path)"
              allow_delete: false
              interval: "2m"
              timeout: "1.9s"
            }
            resolver_preload: {
              \(fixture.systemAccount.publicKeyString): "\(fixture.systemAccountJWT)"
              \(fixture.appAccount.publicKeyString): "\(fixture.appAccountJWT)"
            }

            """
        if let tls {
            config += """
                tls: {
                  cert_file: "\(tls.certificate.path)"
                  key_file: "\(tls.key.path)"
                }

                """
        }
        if let clusterPort {
            let routeList = routes.map { "\"nats-route://127.0.0.1:\($0)\"" }.joined(separator: ", ")
            config += """
                cluster: {
                  name: "tessera"
                  listen: "127.0.0.1:\(clusterPort)"
                  routes: [\(routeList)]
                }

                """
        }
        try config.write(to: dir.appendingPathComponent("\(name).conf"), atomically: true, encoding: .utf8)
        try start()
    }

    /// A server without operator mode, configured by `body` (e.g. an `authorization` block).
    init(plainConfig body: String) throws {
        name = "plain"
        port = try freePort()
        clusterPort = nil
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "listen: \"127.0.0.1:\(port)\"\n\(body)\n".write(
            to: directory.appendingPathComponent("plain.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    /// Starts (or restarts) the server and waits until its client port accepts connections.
    func start() throws {
        guard let binary = Self.binary else { throw ServerSetupError.missingBinary }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", directory.appendingPathComponent("\(name).conf").path]
        if !FileManager.default.fileExists(atPath: logURL.path) {
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: logURL)
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if canConnect(port: port) { return }
            usleep(20_000)
        }
        throw ServerSetupError.notReady((try? String(contentsOf: logURL, encoding: .utf8)) ?? "")
    }

    /// `kill -9`: the server gets no chance to close connections cleanly.
    func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    func stop() {
        guard let process, process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
        self.process = nil
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    deinit { kill() }
}

/// A three-node cluster (full mesh of routes), each node preloaded with the same accounts.
final class NATSCluster: @unchecked Sendable {
    let nodes: [NATSServerProcess]

    init(fixture: OperatorFixture) throws {
        let clientPorts = try (0..<3).map { _ in try freePort() }
        let routePorts = try (0..<3).map { _ in try freePort() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nats-cluster-\(UUID().uuidString)")
        var nodes: [NATSServerProcess] = []
        for i in 0..<3 {
            nodes.append(
                try NATSServerProcess(
                    name: "n\(i + 1)", fixture: fixture, port: clientPorts[i], clusterPort: routePorts[i],
                    routes: routePorts.enumerated().filter { $0.offset != i }.map(\.element), directory: dir))
        }
        self.nodes = nodes
    }
}

/// A TCP port nothing listens on right now (bound to port 0 and released).
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw ServerSetupError.notReady("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
        }
    }
    guard bound else { throw ServerSetupError.notReady("bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
