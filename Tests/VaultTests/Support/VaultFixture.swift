import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraJOSE
import Vault
import VaultClient
import VaultProtocol
import NATSClientTesting

/// A vault deployment for tests: an operator, a bus (the in-process one, or a real nats-server in operator mode),
/// the hosts' database (SQLite in a temporary directory unless `database` says otherwise) and any number of hosts
/// and apps.
final class VaultFixture: Sendable {
    let directory: URL
    let identity: NATSOperatorIdentity
    let bus: VaultBus
    let database: VaultDatabase
    let vaults: VaultDirectory
    private let cleanup: @Sendable () async -> Void

    enum Bus { case inProcess, server(url: String) }

    static func make(bus kind: Bus = .inProcess, identity existing: NATSOperatorIdentity? = nil, database: ServiceDatabase? = nil) async throws -> VaultFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-\(UUID().uuidString)")
        let identity = try existing ?? NATSOperatorIdentity.loadOrCreate(
            in: directory.appendingPathComponent("operator"), name: "tessera-vault-test", random: SystemRandomSource(), clock: SystemClock())
        let bus: VaultBus
        switch kind {
        case .inProcess:
            let server = try InProcessNATSServer(operatorPublicKey: identity.operatorKey.publicKeyString)
            try server.updateAccount(jwt: identity.systemAccountJWT)
            bus = VaultBus(connector: server, endpoint: "in-process", identity: identity) { jwt in try server.updateAccount(jwt: jwt) }
        case .server(let url):
            bus = .nats(urls: [url], identity: identity, clock: SystemClock(), random: SystemRandomSource())
        }
        let configuration = VaultHostConfiguration(
            directory: directory, database: database ?? .sqlite(path: directory.appendingPathComponent("vault.sqlite").path))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let db = try await VaultDatabase.open(configuration)
        return VaultFixture(directory: directory, identity: identity, bus: bus, database: db)
    }

    private init(directory: URL, identity: NATSOperatorIdentity, bus: VaultBus, database: VaultDatabase) {
        self.directory = directory
        self.identity = identity
        self.bus = bus
        self.database = database
        vaults = VaultDirectory(database: database, bus: bus)
        cleanup = {
            await database.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    func shutdown() async { await cleanup() }

    func host(_ id: String, leaseTime: TimeInterval = 3, startsPerRound: Int = 500, clock: any TesseraClock = SystemClock()) -> VaultHost {
        VaultHost(database: database, bus: bus, hostID: id, leaseTime: leaseTime, startsPerRound: startsPerRound, clock: clock)
    }

    /// A member as the ledger leaves it after finalize: the account pushed, bootstrap credentials, the vault
    /// provisioned (identity key).
    struct Member: Sendable {
        let userGUID: String
        let identityPublicKey: Data
        let bootstrap: NATSCredentials
    }

    func enroll() async throws -> Member {
        let user = UUID().uuidString.lowercased()
        try await bus.publishAccount(try identity.accountJWT(userGUID: user, clock: SystemClock()))
        let guid = try VaultSubjects.guid(userGUID: user)
        let account = try identity.accountKey(userGUID: user)
        let key = try NKeyPair(type: .user, random: SystemRandomSource())
        let jwt = try UserClaims(
            user: key.publicKeyString, name: "bootstrap",
            publish: NATSPermission(allow: [VaultSubjects.command(guid, type: VaultSubjects.bootstrapType)]),
            subscribe: NATSPermission(allow: [VaultSubjects.ownerSpace(guid) + ".forApp.app.bootstrap.>"]),
            expires: Date().addingTimeInterval(3600)
        ).encode(signedBy: account, clock: SystemClock())
        let identityKey = try await vaults.provision(userGUID: user, now: Date())
        return Member(userGUID: user, identityPublicKey: identityKey, bootstrap: try NATSCredentials(jwt: jwt, userKey: key))
    }

    /// A host serving a newly enrolled member, and the member's app bootstrapped: where most tests start.
    func servedApp(host id: String = "h1") async throws -> (host: VaultHost, member: Member, app: VaultConnection) {
        let served = host(id)
        let member = try await enroll()
        await served.tick()
        let app = try app(member)
        try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
        return (served, member, app)
    }

    /// The member's app, its session kept in `name`'s directory (a second app with the same name is the same device
    /// after a restart).
    func app(_ member: Member, name: String = "app", identityKey: Data? = nil) throws -> VaultConnection {
        try VaultConnection(
            userGUID: member.userGUID, identityPublicKey: identityKey ?? member.identityPublicKey, connector: bus.connector,
            keyStore: FileVaultSessionKeyStore(directory: directory.appendingPathComponent(member.userGUID + "-" + name)))
    }
}

extension VaultConnection {
    static let device = Device(deviceID: "device-1", deviceType: "linux", appVersion: "1.0")
}

/// A clock tests move forward.
final class MovableClock: TesseraClock, @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    func now() -> Date { lock.withLock { Date().addingTimeInterval(offset) } }
    func advance(by seconds: TimeInterval) { lock.withLock { offset += seconds } }
}
