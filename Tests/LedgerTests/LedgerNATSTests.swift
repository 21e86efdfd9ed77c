import Foundation
import HTTPTransport
import TesseraHTTP
import Ledger
import NATSClient
import TesseraCore
import TesseraTestSupport
import Testing
import VaultClient

/// Finalize mints the member's NATS identity on a real nats-server in operator mode (the ledger's operator): the
/// account is pushed to the full resolver, and the bootstrap credentials reach only the bootstrap subjects.
@Suite(.serialized)
struct LedgerNATSTests {
    @Test func finalizeMintsBootstrapCredentialsTheServerEnforces() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ledger-nats-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: directory.appendingPathComponent("operator"), name: "tessera-ledger-test", random: SystemRandomSource(), clock: SystemClock())
        let server = try OperatorModeServer(identity: identity, directory: directory)
        defer { server.stop() }
        let fixture = try await LedgerFixture { $0.nats = NATSProvisioner(identity: identity, servers: [server.url]) }
        defer { Task { await fixture.shutdown() } }

        // Ready: the database answers, and so does the bus (issue 29).
        let ready = try await LedgerProbe.get(fixture.server.baseURL + "/ready")
        #expect(ready.status == 200 && ready.text.contains("nats"), "\(ready.text)")

        let client = fixture.client()
        let enrolled = try await client.enroll(
            ledger: fixture.server.baseURL, invitation: try await fixture.server.invite(), password: LedgerFixture.password,
            deviceID: "d", deviceType: "linux")
        let nats = try #require(enrolled.nats)
        let space = try #require(nats["owner_space"])
        #expect(space == "OwnerSpace." + enrolled.userGUID.replacingOccurrences(of: "-", with: ""))
        let credentials = try NATSCredentials(credsFile: try #require(nats["bootstrap_creds"]))

        let bootstrap = NATSClient(options: try NATSClientOptions(urls: [server.url], authentication: .credentials(credentials)))
        try await bootstrap.connect()
        let replies = try await bootstrap.subscribe(to: space + ".forApp.app.bootstrap.>")
        try await bootstrap.publish(Data("hello".utf8), to: space + ".forVault.app.bootstrap")
        try await bootstrap.flush()
        // Anything else is refused by the server, and the connection survives it.
        try await bootstrap.publish(Data("x".utf8), to: space + ".forVault.secrets.datastore.list")
        await #expect(throws: NATSError.self) { try await bootstrap.flush() }
        try await bootstrap.publish(Data("again".utf8), to: space + ".forVault.app.bootstrap")
        try await bootstrap.flush()
        _ = replies
        await bootstrap.close()

        // Provisioning again (a retried finalize) re-creates the same account.
        let provisioner = NATSProvisioner(identity: identity, servers: [server.url])
        let again = try await provisioner.provision(userGUID: enrolled.userGUID, now: Date())
        #expect(again["account"] == nats["account"])
    }
}

/// `/ready` names the bus when it does not answer.
@Suite struct LedgerReadinessTests {
    @Test func readyIsRefusedWhileNATSDoesNotAnswer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-ledger-ready-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let identity = try NATSOperatorIdentity.loadOrCreate(
            in: directory.appendingPathComponent("operator"), name: "tessera-ledger-test", random: SystemRandomSource(), clock: SystemClock())
        // Port 1: nothing listens there.
        let fixture = try await LedgerFixture { $0.nats = NATSProvisioner(identity: identity, servers: ["nats://127.0.0.1:1"]) }
        defer { Task { await fixture.shutdown() } }
        let ready = try await LedgerProbe.get(fixture.server.baseURL + "/ready")
        #expect(ready.status == 503)
        #expect(ready.text.contains(#""error":"not_ready""#) && ready.text.contains("nats: NATS does not answer"), "\(ready.text)")
        #expect(try await LedgerProbe.get(fixture.server.baseURL + "/health").status == 200)
    }
}

enum LedgerProbe {
    static func get(_ url: String) async throws -> (status: Int, text: String) {
        let http = AsyncHTTPClientTransport()
        defer { Task { try? await http.shutdown() } }
        let response = try await http.send(HTTPRequest(method: .get, url: try #require(URL(string: url))))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }
}
