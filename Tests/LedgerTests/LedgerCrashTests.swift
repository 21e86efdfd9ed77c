import Foundation
import HolderKit
import Ledger
import ServiceSupport
import Synchronization
import TesseraTestSupport
import Testing
import VaultClient
import HTTPTransport

/// `kill -9` of a `tessera ledger serve` process while several devices log in over and over, then a restart on the
/// same database and port, three times over. Every device's state file is the one its last acknowledged login
/// saved (an unacknowledged login replaced nothing), and every device logs in with it after the restart: nothing
/// acknowledged was lost, and no rotation was left half done (or done with its answer lost, see
/// LedgerRecoveryTests). SQLite (WAL, synchronous=NORMAL) and PostgreSQL.
@Suite(.serialized)
struct LedgerCrashTests {
    static let devices = 4
    static let rounds = 3
    /// Acknowledged logins per round before the kill.
    static let loginsBeforeKill = 12

    @Test(arguments: LedgerDatabases.all)
    func kill9DuringAuthenticationLosesNothingAcknowledged(database: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ledger-crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let operatorDirectory = directory.appendingPathComponent("ledger")
        let databaseURL: String
        if database == "postgres" {
            try await LedgerDatabases.postgresMigrated.value
            databaseURL = try #require(ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"])
        } else {
            databaseURL = directory.appendingPathComponent("ledger.sqlite").path
        }
        let arguments = ["ledger", "serve", "--operator-dir", operatorDirectory.path, "--database", databaseURL, "--kdf-cost", "m=256,t=1,p=1", "--auto-migrate"]
        let environment = ["TESSERA_HOME": directory.path]
        var ledger = try await ServiceProcess.start(arguments + ["--port", "0"], environment: environment)
        defer { ledger.stop() }
        let port = try #require(ledger.port)

        // An HTTP client must be shut down before it is released, also when the test throws half-way.
        var http = AsyncHTTPClientTransport()
        do {
            try await run(ledger: &ledger, arguments: arguments, environment: environment, port: port, http: &http, directory: directory,
                          configuration: LedgerConfiguration(database: try ServiceDatabase(url: databaseURL), directory: operatorDirectory))
        } catch {
            try? await http.shutdown()
            throw error
        }
        try? await http.shutdown()
    }

    /// Enrolls the devices, then runs the rounds of load, kill -9, restart and checks.
    private func run(
        ledger: inout ServiceProcess, arguments: [String], environment: [String: String], port: Int, http: inout AsyncHTTPClientTransport,
        directory: URL, configuration: LedgerConfiguration
    ) async throws {
        // Invitations straight into the same database (what `tessera ledger invite` does), then the enrollments.
        var clients: [VaultClient] = []
        for index in 0..<Self.devices {
            let client = VaultClient(store: VaultStateStore(directory: directory.appendingPathComponent("device-\(index)")), http: http)
            _ = try await client.enroll(
                ledger: ledger.baseURL, invitation: try await LedgerServer.invite(configuration), password: LedgerFixture.password,
                deviceID: "device-\(index)", deviceType: "linux")
            clients.append(client)
        }

        for round in 1...Self.rounds {
            let log = LoginLog(states: try clients.map { try $0.store.load() })
            let devices = clients
            let load = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (index, client) in devices.enumerated() {
                        group.addTask {
                            while !Task.isCancelled {
                                do {
                                    _ = try await client.authenticate(password: LedgerFixture.password)
                                    log.acknowledged(index, state: try? client.store.load())
                                } catch {
                                    // Not acknowledged (the ledger is gone, or refused): the state file stays as it was.
                                    try? await Task.sleep(for: .milliseconds(20))
                                }
                            }
                        }
                    }
                }
            }
            let start = Date()
            while log.acknowledgedCount < Self.loginsBeforeKill, Date().timeIntervalSince(start) < 120 {
                try await Task.sleep(for: .milliseconds(10))
            }
            // A little later than the threshold, at a different point of the logins in flight each round.
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
            ledger.kill9()
            try await Task.sleep(for: .milliseconds(300))
            load.cancel()
            await load.value
            let summary = log.summary
            #expect(summary.acknowledged >= Self.loginsBeforeKill, "round \(round): the load produced too few logins to test anything")
            #expect(summary.unreadable == 0, "round \(round): a saved state could not be read back")

            // Same port, so the ledger URL in the devices' states still points at it; a fresh HTTP client, so no
            // connection to the killed process is reused.
            ledger = try await ServiceProcess.start(arguments + ["--port", "\(port)"], environment: environment)
            try? await http.shutdown()
            http = AsyncHTTPClientTransport()
            for (index, old) in clients.enumerated() {
                let client = VaultClient(store: old.store, http: http)
                clients[index] = client
                let saved = try client.store.load()
                #expect(saved == log.lastAcknowledged(index), "round \(round), device \(index): the state file is not the last acknowledged one")
                do {
                    // One more than the saved version, or two when the ledger had committed a login whose answer
                    // the kill cut off.
                    let login = try await client.authenticate(password: LedgerFixture.password)
                    #expect((1...2).contains(login.cekVersion - saved.blob.cekVersion))
                } catch {
                    Issue.record("round \(round), device \(index) (cek_version \(saved.blob.cekVersion)) cannot log in after the restart: \(error)")
                }
            }
        }
    }
}
