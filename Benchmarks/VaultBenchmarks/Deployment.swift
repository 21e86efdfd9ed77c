// What every vault benchmark runs on: a nats-server in operator mode (a child process of the benchmark), the vault
// hosts' database (SQLite in a temporary directory, as `tessera vault serve` uses by default), one VaultHost, the
// users with their apps, and the floor's two raw NATS clients in an account of their own on the same server.

import BenchmarkSupport
import Foundation
import NATSClient
import TesseraCore
import Vault
import VaultClient
import VaultProtocol

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(CMalloc)
    import CMalloc
#endif

/// The value every user keeps under `bench`: 1,024 bytes (printable, so it is a JSON string of the same length).
let secretValue = String((0..<1024).map { Character(Unicode.Scalar(UInt8(97 + $0 % 26))) })
let secretKey = "bench"
/// The floor's payload: 1,024 bytes.
let floorPayload = [UInt8]((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
let floorSubject = "bench.echo"

// MARK: - nats-server in operator mode

/// nats-server trusting the benchmark's operator (JWT accounts pushed to a full resolver, like the ledger and the vault
/// hosts do), listening on a port it picks itself (read back from its log). NATS_SERVER overrides the binary.
final class OperatorNATSServer: Sendable {
    let url: String
    private let process: Process

    init(identity: NATSOperatorIdentity, directory: URL) throws {
        let binary = ProcessInfo.processInfo.environment["NATS_SERVER"] ?? "/usr/sbin/nats-server"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchmarkFailure("\(binary) is missing: apt-get install nats-server (or set NATS_SERVER)")
        }
        let resolver = directory.appendingPathComponent("resolver")
        try FileManager.default.createDirectory(at: resolver, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("nats.conf"), log = directory.appendingPathComponent("nats.log")
        try identity.serverConfiguration(listen: "127.0.0.1:-1", resolverDirectory: resolver.path)
            .write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", config.path, "-l", log.path]
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        var found: String?
        while found == nil, Date() < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "Listening for client connections on ") {
                found = "nats://" + text[range.upperBound...].prefix { !$0.isNewline }
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        guard let found else {
            process.terminate()
            throw BenchmarkFailure("nats-server did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        url = found
    }

    /// The server's resident set (KiB).
    var residentKiB: Int { residentSetKiB(pid: process.processIdentifier) }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// VmRSS of a process (KiB), 0 when unreadable.
func residentSetKiB(pid: Int32? = nil) -> Int {
    let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
    guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// Bytes the process's malloc heap holds in use (arenas + mmapped blocks), independent of what earlier benchmarks
/// freed and glibc kept mapped.
func heapInUseBytes() -> Int {
    #if canImport(CMalloc)
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd)
    #else
        return 0
    #endif
}

// MARK: - Deployment

/// One user: the vault as the ledger leaves it after finalize, and (when bootstrapped) the app's E2E session.
struct BenchUser: Sendable {
    let userGUID: String
    let identityPublicKey: Data
    let bootstrap: NATSCredentials
    var app: VaultConnection?
}

/// nats-server (operator mode) + the hosts' database + one VaultHost + users; the floor's clients on the same server.
final class Deployment: Sendable {
    let directory: URL
    let identity: NATSOperatorIdentity
    let server: OperatorNATSServer
    let database: VaultDatabase
    let bus: VaultBus
    let vaults: VaultDirectory
    let host: VaultHost
    /// A system-account connection that pushes the users' account JWTs (what the ledger does at enrollment).
    let system: NATSClient

    private init(
        directory: URL, identity: NATSOperatorIdentity, server: OperatorNATSServer, database: VaultDatabase, bus: VaultBus,
        host: VaultHost, system: NATSClient
    ) {
        self.directory = directory
        self.identity = identity
        self.server = server
        self.database = database
        self.bus = bus
        vaults = VaultDirectory(database: database, bus: bus)
        self.host = host
        self.system = system
    }

    static func start() async throws -> Deployment {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: directory.appendingPathComponent("operator"), name: "tessera-vault-bench", random: SystemRandomSource(), clock: SystemClock())
        let server = try OperatorNATSServer(identity: identity, directory: directory.appendingPathComponent("nats"))
        let database: VaultDatabase
        do {
            database = try await VaultDatabase.open(VaultHostConfiguration(
                directory: directory, database: .sqlite(path: directory.appendingPathComponent("vault.sqlite").path)))
        } catch {
            server.stop()
            throw error
        }
        let bus = VaultBus.nats(urls: [server.url], identity: identity, clock: SystemClock(), random: SystemRandomSource())
        // The production host: lease 15 s (the `tessera vault serve` default), no vault limit in reach.
        let host = VaultHost(database: database, bus: bus, hostID: "bench-host", leaseTime: 15)
        let system = NATSClient(options: try NATSClientOptions(
            urls: [server.url], name: "bench-system",
            authentication: .credentials(try identity.systemUser(random: SystemRandomSource(), clock: SystemClock()))))
        try await connect(system)
        return Deployment(directory: directory, identity: identity, server: server, database: database, bus: bus, host: host, system: system)
    }

    /// Connects, retried for up to 10 s while the server starts.
    static func connect(_ client: NATSClient) async throws {
        var lastError: any Error = BenchmarkFailure("no attempt")
        for _ in 0..<100 {
            do {
                try await client.connect()
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw BenchmarkFailure("cannot connect: \(lastError)")
    }

    /// A user as the ledger leaves it: the account pushed to the server, bootstrap credentials, the vault provisioned.
    func enroll() async throws -> BenchUser {
        let user = UUID().uuidString.lowercased()
        _ = try await system.pushAccountJWT(try identity.accountJWT(userGUID: user, clock: SystemClock()))
        let guid = try VaultSubjects.guid(userGUID: user)
        let account = try identity.accountKey(userGUID: user)
        let key = try NKeyPair(type: .user, random: SystemRandomSource())
        let jwt = try UserClaims(
            user: key.publicKeyString, name: "bootstrap",
            publish: NATSPermission(allow: [VaultSubjects.command(guid, type: VaultSubjects.bootstrapType)]),
            subscribe: NATSPermission(allow: [VaultSubjects.ownerSpace(guid) + ".forApp.app.bootstrap.>"]),
            expires: Date().addingTimeInterval(24 * 3600)
        ).encode(signedBy: account, clock: SystemClock())
        let identityKey = try await vaults.provision(userGUID: user, now: Date())
        return BenchUser(userGUID: user, identityPublicKey: identityKey, bootstrap: try NATSCredentials(jwt: jwt, userKey: key))
    }

    /// `count` users enrolled, 8 at a time (setup only).
    func enroll(_ count: Int) async throws -> [BenchUser] {
        try await concurrently(count, width: 8) { _ in try await self.enroll() }
    }

    /// The user's app bootstrapped (signed reply checked, session saved in a 0600 file as the CLI keeps it) and its
    /// 1 KB secret stored once.
    func app(for user: BenchUser) async throws -> VaultConnection {
        let app = try VaultConnection(
            userGUID: user.userGUID, identityPublicKey: user.identityPublicKey, connector: bus.connector,
            keyStore: FileVaultSessionKeyStore(directory: directory.appendingPathComponent("apps/" + user.userGUID)))
        try await app.bootstrap(
            credentials: user.bootstrap,
            device: VaultConnection.Device(deviceID: "bench-" + user.userGUID.prefix(8), deviceType: "linux", appVersion: "bench"))
        _ = try await app.addSecret(secretKey, value: secretValue)
        let check = try await app.secret(secretKey)
        guard check.value == secretValue else { throw BenchmarkFailure("the secret read back differs") }
        return app
    }

    /// Starts the vaults of every provisioned user now: lease rounds as the host's loop runs them every 5 s, each
    /// starting at most `startsPerRound` vaults, back to back.
    func startVaults(expecting count: Int) async throws {
        var active = await host.activeVaults.count
        for _ in 0..<(count / host.startsPerRound + 2) where active < count {
            await host.tick()
            active = await host.activeVaults.count
        }
        guard active == count else { throw BenchmarkFailure("\(active) vaults running, \(count) expected") }
    }

    func shutdown() async {
        await host.shutdown()
        await system.close()
        await database.shutdown()
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: floor

    /// The floor's requester and responder: raw NATSClient connections in an account of their own on the same server,
    /// with permissions of the same shape as the app's and the vault's (the requester publishes the service subject
    /// and hears its inbox, the responder the other way round), so the server's permission checks are the same work.
    func floorClients() async throws -> (requester: NATSClient, responder: NATSClient) {
        let account = UUID().uuidString.lowercased()
        _ = try await system.pushAccountJWT(try identity.accountJWT(userGUID: account, clock: SystemClock()))
        let accountKey = try identity.accountKey(userGUID: account)
        func client(_ name: String, publish: [String], subscribe: [String]) async throws -> NATSClient {
            let key = try NKeyPair(type: .user, random: SystemRandomSource())
            let jwt = try UserClaims(
                user: key.publicKeyString, name: name, publish: NATSPermission(allow: publish), subscribe: NATSPermission(allow: subscribe)
            ).encode(signedBy: accountKey, clock: SystemClock())
            let client = NATSClient(options: try NATSClientOptions(
                urls: [server.url], name: name, authentication: .credentials(try NATSCredentials(jwt: jwt, userKey: key))))
            try await Self.connect(client)
            return client
        }
        let responder = try await client("bench-responder", publish: ["_INBOX.>"], subscribe: [floorSubject])
        let requester = try await client("bench-requester", publish: [floorSubject], subscribe: ["_INBOX.>"])
        return (requester, responder)
    }
}

/// `count` results of `body(index)`, at most `width` running at once.
func concurrently<T: Sendable>(_ count: Int, width: Int, _ body: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        var results = [T?](repeating: nil, count: count)
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { (index, try await body(index)) }
            next += 1
        }
        while let (index, value) = try await group.next() {
            results[index] = value
            if next < count {
                let index = next
                group.addTask { (index, try await body(index)) }
                next += 1
            }
        }
        return results.compactMap { $0 }
    }
}
