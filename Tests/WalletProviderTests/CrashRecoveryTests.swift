import Crypto
import Foundation
import Synchronization
import Testing
import WalletInstanceKit

/// `kill -9` of the provider under registration load, then a restart on the same database: every registration
/// answered 204 is there (SQLite in WAL mode with synchronous=NORMAL, and PostgreSQL).
@Suite(.serialized)
struct CrashRecoveryTests {
    @Test(arguments: ProviderDatabases.all)
    func everyAcknowledgedRegistrationSurvivesKill9(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()  // created through the in-process server, on the same database
        try fixture.authority.write(toDirectory: fixture.directory.appendingPathComponent("test-root"))
        let digest = ProviderFixture.application.signingCertificateDigests.map { $0.map { String(format: "%02x", $0) }.joined() }
        let arguments = [
            "--database", fixture.databasePath ?? ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"] ?? "",
            "--directory", fixture.directory.appendingPathComponent("external").path,
            "--trust-test-attestation-root", fixture.directory.appendingPathComponent("test-root/root-certificate.pem").path,
            "--android-app", "\(ProviderFixture.application.packageName):\(digest.first ?? "")",
        ]
        let first = try await ProviderProcess.start(arguments, home: fixture.directory)
        let loaded = fixture.at(first.baseURL)

        let acknowledged = Acknowledged()
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var round = 0
                        while !Task.isCancelled {
                            round += 1
                            guard let challenge = try? await loaded.nonce(),
                                let registration = try? await loaded.registrationBody(challenge: challenge, wallet: "w\(worker)-\(round)"),
                                let answer = try? await loaded.request(.post, "/wallet-instance", json: registration.body, session: account.session)
                            else { continue }
                            if answer.status == 204 { acknowledged.tags.withLock { $0.append(registration.tag) } }
                        }
                    }
                }
            }
        }
        // Let registrations flow, then kill the provider in the middle of them.
        let start = Date()
        while acknowledged.tags.withLock({ $0.count }) < 40, Date().timeIntervalSince(start) < 60 {
            try await Task.sleep(for: .milliseconds(50))
        }
        first.kill9()
        try await Task.sleep(for: .milliseconds(300))
        load.cancel()
        await load.value
        let tags = acknowledged.tags.withLock { $0 }
        #expect(tags.count >= 40, "the load produced too few registrations to test anything")

        let second = try await ProviderProcess.start(arguments, home: fixture.directory)
        defer { second.stop() }
        let restarted = fixture.at(second.baseURL)
        var missing: [String] = []
        for tag in tags {
            let answer = try await restarted.request(.get, "/api/wallet-instances/\(InstanceID.of(tag))", session: account.session)
            if answer.status != 200 { missing.append(tag) }
        }
        #expect(missing.isEmpty, "acknowledged but lost after kill -9: \(missing.count) of \(tags.count)")
        let listed = try await restarted.request(.get, "/api/wallet-instances", session: account.session)
        #expect((listed.json?["wallet_instances"]?.arrayValue?.count ?? 0) >= tags.count)
    }
}

/// The tags answered 204, appended by the load's tasks.
private final class Acknowledged: Sendable {
    let tags = Mutex<[String]>([])
}
