import Foundation
import Ledger
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraJOSE
import Vault
import VaultClient
import VaultProtocol
import NATSClientTesting

/// The vault part of `tessera demo`: a ledger and a vault host sharing an in-process NATS bus (the same accounts,
/// permissions and revocations as nats-server in operator mode; `--nats URL` uses a real server) and SQLite; two
/// users enroll, bootstrap their end-to-end sessions, keep secrets, and (when the host supports connections) talk.
enum DemoVault {
    /// A command's outcome in one word: "ok", or the vault's error code.
    static func outcome<T>(_ command: () async throws(VaultError) -> T) async -> String {
        do {
            _ = try await command()
            return "ok"
        } catch {
            if case .vault(let code, _) = error { return code }
            return error.description
        }
    }

    struct User {
        let name: String
        let userGUID: String
        let vault: VaultConnection
    }

    static func run(nats: String?) async throws {
        print("== Personal vault: two users' vaults on one host, reached over NATS with end-to-end encryption ==")
        let fm = FileManager.default
        let home = fm.temporaryDirectory.appendingPathComponent("tessera-demo-vault-\(UUID().uuidString.prefix(8))")
        try fm.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: home) }
        // On a real server, the operator it trusts: the ledger's (`tessera ledger nats-config` prints its configuration).
        let operatorDirectory = nats == nil ? home.appendingPathComponent("operator") : TesseraHome.url.appendingPathComponent("ledger")
        let identity = try NATSOperatorIdentity.loadOrCreate(in: operatorDirectory, name: "tessera-ledger", random: SystemRandomSource(), clock: SystemClock())
        let bus: VaultBus
        if let nats {
            bus = .nats(urls: nats.split(separator: ",").map(String.init), identity: identity, clock: SystemClock(), random: SystemRandomSource())
            print("bus: nats-server at \(nats) (trusting the operator in \(operatorDirectory.path): `tessera ledger nats-config`)")
        } else {
            let server = try InProcessNATSServer(operatorPublicKey: identity.operatorKey.publicKeyString)
            try server.updateAccount(jwt: identity.systemAccountJWT)
            bus = VaultBus(connector: server, endpoint: "in-process", identity: identity) { jwt in try server.updateAccount(jwt: jwt) }
            print("bus: in-process, operator mode (an account per user, permissions per credential)")
        }
        let database = try await VaultDatabase.open(
            VaultHostConfiguration(directory: home.appendingPathComponent("host"), database: .sqlite(path: home.appendingPathComponent("vault.sqlite").path)))
        var configuration = LedgerConfiguration(
            database: .sqlite(path: home.appendingPathComponent("ledger.sqlite").path), directory: home.appendingPathComponent("ledger"))
        configuration.kdfMemoryKiB = 19_456
        configuration.kdfIterations = 2
        configuration.kdfParallelism = 1
        configuration.nats = NATSProvisioner(identity: identity, servers: [bus.endpoint], publishAccount: bus.publishAccount)
        configuration.vault = VaultLifecycleBackend(vaults: VaultDirectory(database: database, bus: bus))
        let ledger = try await LedgerServer.start(configuration, port: 0)
        let host = VaultHost(database: database, bus: bus, hostID: "demo-host", leaseTime: 6)
        do {
            try await walkThrough(ledger: ledger, host: host, bus: bus, home: home)
        } catch {
            await host.shutdown()
            await ledger.shutdown()
            await database.shutdown()
            throw error
        }
        await host.shutdown()
        await ledger.shutdown()
        await database.shutdown()
    }

    private static func walkThrough(ledger: LedgerServer, host: VaultHost, bus: VaultBus, home: URL) async throws {
        print("ledger: \(ledger.baseURL); vault host: \(host.hostID) (a lease per vault in the hosts' database)")
        var users: [User] = []
        for name in ["alice", "bob"] {
            let client = VaultClient(store: VaultStateStore(directory: home.appendingPathComponent(name)), http: SharedHTTP.client)
            let enrolled = try await client.enroll(
                ledger: ledger.baseURL, invitation: try await ledger.invite(), password: "tessera demo password of \(name)",
                deviceID: name + "-phone", deviceType: "cli")
            guard let identityKey = enrolled.vaultIdentityPublicKey, let creds = enrolled.nats?["bootstrap_creds"] else {
                throw UserFacingError("the ledger did not provision a vault")
            }
            await host.tick()
            let vault = try VaultConnection(
                userGUID: enrolled.userGUID, identityPublicKey: identityKey, connector: bus.connector,
                keyStore: FileVaultSessionKeyStore(directory: home.appendingPathComponent(name)))
            let bootstrap = try await vault.bootstrap(
                credentials: try NATSCredentials(credsFile: creds), device: .init(deviceID: name + "-phone", deviceType: "cli", appVersion: Tessera.version))
            print("\(name): enrolled (user \(enrolled.userGUID.prefix(8))…), vault identity key from the ledger")
            print("  bootstrap reply signed by the vault's Ed25519 key: verified; session \(bootstrap.sessionInfo.sessionID.prefix(8))…")
            print("  full NATS credentials (sealed under the session key): publish \(bootstrap.ownerSpace).forVault.>, subscribe …forApp.>")
            users.append(User(name: name, userGUID: enrolled.userGUID, vault: vault))
        }
        let (alice, bob) = (users[0], users[1])
        _ = try await alice.vault.addSecret("bank/pin", value: "2468", metadata: ["note": "demo"])
        _ = try await alice.vault.updateProfile(set: ["display_name": "Alice"])
        let secret = try await alice.vault.secret("bank/pin")
        print("alice: secrets.datastore.add then retrieve → \(secret.key) = \(secret.value) (version \(secret.version))")
        // The database and its write-ahead log, where recent writes still are.
        let dump = ["vault.sqlite", "vault.sqlite-wal"].compactMap { try? Data(contentsOf: home.appendingPathComponent($0)) }.reduce(Data(), +)
        let leaked = dump.range(of: Data("2468".utf8)) != nil || dump.range(of: Data("bank/pin".utf8)) != nil
        print("  the hosts' database files hold neither the key name nor the value: \(leaked ? "LEAKED" : "confirmed")")
        let bobsLookup = await outcome { () async throws(VaultError) in try await bob.vault.secret("bank/pin") }
        print("bob: the same key in his own vault → \(bobsLookup) (each user's data is sealed under their own key)")
        try await DemoVaultMessaging.run(alice: alice, bob: bob)
        for user in users { await user.vault.close() }
        print("drops (tampered, replayed or foreign messages, never answered): \(await host.dropCounts().values.reduce(0, +))")
    }
}
