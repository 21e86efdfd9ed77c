import Foundation
import NATSClient
import ServiceSupport
import TesseraCore
import TesseraTestSupport
import Vault
import VaultClient
import VaultProtocol

/// What the process-level reliability tests share: the databases they run on, members provisioned as the ledger
/// leaves them, and a log of what the load was told.
enum VaultReliability {
    /// Whether a nats-server binary is there (as `OperatorModeServer` looks for it).
    static let natsServerAvailable = [ProcessInfo.processInfo.environment["NATS_SERVER"], "/usr/sbin/nats-server", "/usr/bin/nats-server"]
        .compactMap { $0 }.contains { FileManager.default.isExecutableFile(atPath: $0) }

    /// SQLite always; PostgreSQL when `TESSERA_TEST_POSTGRES_URL` is set (scripts/test sets it).
    static var databases: [String] {
        var names = ["sqlite"]
        if let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"], !url.isEmpty { names.append("postgres") }
        return names
    }

    /// The database URL for `name`: an SQLite file in `directory`, or the test PostgreSQL.
    static func databaseURL(_ name: String, in directory: URL) throws -> String {
        if name == "postgres" {
            guard let url = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"], !url.isEmpty else {
                throw TestFixtureError("TESSERA_TEST_POSTGRES_URL is not set")
            }
            return url
        }
        return directory.appendingPathComponent("vault.sqlite").path
    }

    /// Opens (and migrates) the hosts' database before any host process does, so that two hosts never migrate one
    /// fresh database at once. Other suites may migrate the shared test PostgreSQL at the same moment (Fluent's
    /// migration table is created by whoever comes first): a failed first attempt is tried again.
    static func openDatabase(_ configuration: VaultHostConfiguration) async throws -> VaultDatabase {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await SharedPostgres.serialized { try await VaultDatabase.open(configuration) }
            } catch {
                if attempt >= 3 { throw error }
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    /// A member as the ledger leaves it after finalize: the NATS account pushed to the bus, bootstrap credentials,
    /// the vault provisioned in the hosts' database.
    struct Member: Sendable {
        let userGUID: String
        let identityPublicKey: Data
        let bootstrap: NATSCredentials

        var guid: String { userGUID.replacingOccurrences(of: "-", with: "") }
    }

    static func enroll(identity: NATSOperatorIdentity, bus: VaultBus, vaults: VaultDirectory) async throws -> Member {
        let user = UUID().uuidString.lowercased()
        try await bus.publishAccount(try identity.accountJWT(userGUID: user, clock: SystemClock()))
        let guid = try VaultSubjects.guid(userGUID: user)
        let key = try NKeyPair(type: .user, random: SystemRandomSource())
        let jwt = try UserClaims(
            user: key.publicKeyString, name: "bootstrap",
            publish: NATSPermission(allow: [VaultSubjects.command(guid, type: VaultSubjects.bootstrapType)]),
            subscribe: NATSPermission(allow: [VaultSubjects.ownerSpace(guid) + ".forApp.app.bootstrap.>"]),
            expires: Date().addingTimeInterval(3600)
        ).encode(signedBy: try identity.accountKey(userGUID: user), clock: SystemClock())
        let identityKey = try await vaults.provision(userGUID: user, now: Date())
        return Member(userGUID: user, identityPublicKey: identityKey, bootstrap: try NATSCredentials(jwt: jwt, userKey: key))
    }

    /// The member's app on nats-server at `urls` (tried in order; reconnecting without giving up), its session kept
    /// in `directory`. Commands wait `timeout` for an answer and are sent up to 15 times (same event id): long
    /// enough to ride out a takeover or a node failure, which is what these tests are about.
    static func app(_ member: Member, urls: [String], directory: URL, timeout: Duration = .seconds(1)) async throws -> VaultConnection {
        let connector = NATSServerConnector(urls: urls) { options in
            options.maxReconnectAttempts = nil
        }
        let app = try VaultConnection(
            userGUID: member.userGUID, identityPublicKey: member.identityPublicKey, connector: connector,
            keyStore: FileVaultSessionKeyStore(directory: directory))
        await app.setRequestTimeout(timeout)
        await app.setAttempts(15)
        return app
    }

    /// Polls `condition` every 100 ms until it holds or `seconds` (generous: a loaded machine must not fail it) pass.
    static func eventually(
        _ what: String, within seconds: Double = 120, _ condition: () async throws -> Bool
    ) async throws {
        try await waitUntil(what, within: seconds, condition)
    }
}

extension VaultConnection {
    func setAttempts(_ count: Int) { attempts = count }
}

/// What a load was told: the writes (or messages) acknowledged, in order, the longest wait for one (a command
/// sent again until a host or node failure was over), and the attempts that got no acknowledgement (an error
/// answer or none: nothing to assert about them).
actor AcknowledgementLog {
    private(set) var acknowledged: [String] = []
    private(set) var slowest: Duration = .zero
    private(set) var unacknowledged = 0
    private(set) var errors: [String: Int] = [:]

    func acknowledge(_ key: String, after latency: Duration = .zero) {
        acknowledged.append(key)
        slowest = max(slowest, latency)
    }

    func fail(_ error: any Error) {
        unacknowledged += 1
        errors[String(describing: error), default: 0] += 1
    }

    var count: Int { acknowledged.count }
}

/// What a test started and must end whatever happens (a load left running, or an app reconnecting forever, would
/// outlive the test): loads are cancelled and awaited, then apps closed.
actor TestResources {
    private var loads: [Task<Void, Never>] = []
    private var apps: [VaultConnection] = []

    func track(_ load: Task<Void, Never>) { loads.append(load) }
    func track(_ app: VaultConnection) { apps.append(app) }

    /// Cancels the loads and waits for them to end.
    func stopLoads() async {
        for load in loads { load.cancel() }
        for load in loads { await load.value }
        loads = []
    }

    func release() async {
        await stopLoads()
        for app in apps { await app.close() }
        apps = []
    }
}

extension AcknowledgementLog {
    /// A write load: new secrets `prefix/1`, `prefix/2`… added one after the other, as fast as they are answered,
    /// each acknowledged (or its failure kept) here, until the task is cancelled.
    nonisolated func writeLoad(_ app: VaultConnection, prefix: String) -> Task<Void, Never> {
        Task {
            var n = 0
            while !Task.isCancelled {
                n += 1
                let key = "\(prefix)/\(n)"
                let started = ContinuousClock.now
                do {
                    _ = try await app.addSecret(key, value: "value of \(key)")
                    await acknowledge(key, after: ContinuousClock.now - started)
                } catch {
                    await fail(error)
                }
            }
        }
    }
}
