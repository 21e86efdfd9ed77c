import Crypto
import Foundation
import NATSClient
import TesseraCore
import TesseraJOSE
import TesseraTestSupport
import Testing
import Vault
import VaultClient
import VaultProtocol

/// The vault against a real nats-server in operator mode: isolation between users enforced by the server, envelopes
/// that are tampered with, replayed, reordered or moved to another subject dropped and never answered, and a server
/// restart in the middle of traffic.
@Suite(.serialized)
struct VaultNATSServerTests {
    /// One deployment: nats-server trusting the operator, a host, and `users` members with bootstrapped apps.
    struct Deployment {
        let fixture: VaultFixture
        let serverDirectory: URL
        let server: OperatorModeServer
        let host: VaultHost
        let members: [VaultFixture.Member]
        let apps: [VaultConnection]

        static func make(users: Int) async throws -> Deployment {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-vault-nats-\(UUID().uuidString)")
            let identity = try NATSOperatorIdentity.loadOrCreate(
                in: directory.appendingPathComponent("operator"), name: "tessera-vault-test", random: SystemRandomSource(), clock: SystemClock())
            let server = try OperatorModeServer(identity: identity, directory: directory)
            let fixture = try await VaultFixture.make(bus: .server(url: server.url), identity: identity)
            let host = fixture.host("h1")
            var members: [VaultFixture.Member] = []
            var apps: [VaultConnection] = []
            for _ in 0..<users {
                let member = try await fixture.enroll()
                await host.tick()
                let app = try fixture.app(member)
                try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
                members.append(member)
                apps.append(app)
            }
            return Deployment(fixture: fixture, serverDirectory: directory, server: server, host: host, members: members, apps: apps)
        }

        func session(_ index: Int) throws -> VaultSessionState {
            try #require(try FileVaultSessionKeyStore(directory: fixture.directory.appendingPathComponent(members[index].userGUID + "-app")).loadSession())
        }

        /// A raw NATS client with the app's own credentials.
        func rawClient(_ index: Int) async throws -> NATSClient {
            let client = NATSClient(options: try NATSClientOptions(
                urls: [server.url], authentication: .credentials(try NATSCredentials(credsFile: try session(index).credentials))))
            try await client.connect()
            return client
        }

        /// Runs `body` on a new deployment and always shuts it down (a Vapor application must not outlive its test).
        static func with(users: Int, _ body: (Deployment) async throws -> Void) async throws {
            let deployment = try await make(users: users)
            do {
                try await body(deployment)
            } catch {
                await deployment.shutdown()
                throw error
            }
            await deployment.shutdown()
        }

        func shutdown() async {
            for app in apps { await app.close() }
            await host.shutdown()
            await fixture.shutdown()
            server.stop()
            try? FileManager.default.removeItem(at: serverDirectory)
        }
    }

    @Test func oneUserCannotPublishToSubscribeOnOrReadAnotherUsersVault() async throws {
        try await Deployment.with(users: 2) { deployment in
            let (a, b) = (deployment.apps[0], deployment.apps[1])
            _ = try await b.addSecret("b-secret", value: "only for b")
            let guidB = try VaultSubjects.guid(userGUID: deployment.members[1].userGUID)
            let clientA = try await deployment.rawClient(0)

            // Publishing into B's space with A's credentials is refused by the server (surfaced at flush).
            try await clientA.publish(Data("{}".utf8), to: VaultSubjects.command(guidB, type: "secrets.datastore.list"))
            await #expect(throws: NATSError.self) { try await clientA.flush() }
            // Subscribing to B's replies, or to everything, is refused too.
            for subject in [VaultSubjects.allForApp(guidB), ">", "OwnerSpace.>", VaultSubjects.allFromPeers(guidB)] {
                let subscription = try await clientA.subscribe(to: subject)
                await #expect(throws: NATSError.self) { for try await _ in subscription {} }
            }
            // And A's vault answers A only: B's secret is not A's.
            await #expect(throws: VaultError.vault(code: "not_found", message: "secret b-secret does not exist")) { try await a.secret("b-secret") }
            #expect(try await b.secret("b-secret").value == "only for b")
            await clientA.close()
        }
    }

    @Test func tamperedReplayedReorderedAndMovedEnvelopesAreDroppedAndNeverAnswered() async throws {
        try await Deployment.with(users: 1) { deployment in
            let app = deployment.apps[0]
            _ = try await app.addSecret("k", value: "v")
            let state = try deployment.session(0)
            let key = SymmetricKey(data: try #require(Base64URL.bytes(state.sessionKey)))
            let guid = try VaultSubjects.guid(userGUID: deployment.members[0].userGUID)
            let raw = try await deployment.rawClient(0)
            let answers = try await raw.subscribe(to: VaultSubjects.allForApp(guid))
            try await raw.flush()

            func envelope(_ type: String, seq: UInt64, subject: String? = nil, session: String? = nil, id: String = UUID().uuidString) throws -> VaultEnvelope {
                let event = VaultEventMessage(id: id, type: type, payload: ["key": "k"], timestamp: Int64(Date().timeIntervalSince1970))
                return try VaultEnvelope.seal(
                    event.encoded(), key: key, direction: .appToVault, sessionID: session ?? state.sessionID, seq: seq,
                    subject: subject ?? VaultSubjects.command(guid, type: type), random: SystemRandomSource())
            }
            let retrieve = "secrets.datastore.retrieve"
            let subject = VaultSubjects.command(guid, type: retrieve)
            // A genuine message inside the app's reserved block (the app restarts above it afterwards): answered once.
            let genuine = try envelope(retrieve, seq: 80)
            try await raw.publish(genuine.encoded(), to: subject)
            // Replayed: dropped as a duplicate.
            try await raw.publish(genuine.encoded(), to: subject)
            // Reordered far behind the window: too old.
            try await raw.publish(try envelope(retrieve, seq: 10).encoded(), to: subject)
            // Moved to another subject (a fresh sequence number, so only the subject differs): it is in the AAD.
            let moved = try envelope(retrieve, seq: genuine.seq + 2)
            try await raw.publish(moved.encoded(), to: VaultSubjects.command(guid, type: "secrets.datastore.delete"))
            // One byte of the ciphertext changed.
            var bytes = [UInt8](genuine.ciphertext)
            bytes[0] ^= 1
            let tampered = """
                {"version":1,"session_id":"\(genuine.sessionID)","seq":\(genuine.seq + 1),"nonce":"\(Base64URL.encode(genuine.nonce))","ciphertext":"\(Base64URL.encode(bytes))"}
                """
            try await raw.publish(Data(tampered.utf8), to: subject)
            // An unknown session, garbage, and a sequence number far out of the window.
            try await raw.publish(try envelope(retrieve, seq: 1, session: "no-such-session").encoded(), to: subject)
            try await raw.publish(Data("not json".utf8), to: subject)
            try await raw.publish(try envelope(retrieve, seq: 80 + 100_000).encoded(), to: subject)
            try await raw.flush()

            // Exactly one answer comes back (to the genuine message), and it is encrypted.
            var received: [NATSMessage] = []
            let collector = Task {
                for try await message in answers {
                    received.append(message)
                }
                return received
            }
            try await Task.sleep(for: .milliseconds(800))
            collector.cancel()
            await answers.unsubscribe()
            let answered = (try? await collector.value) ?? []
            #expect(answered.count == 1)
            if let only = answered.first { #expect(throws: Never.self) { try VaultEnvelope(json: only.payload) } }
            let drops = await deployment.host.dropCounts()
            #expect(drops[.duplicate] == 1)
            #expect(drops[.tooOld] == 1)
            #expect(drops[.badTag] == 2)
            #expect(drops[.unknownSession] == 1)
            #expect(drops[.malformed] == 1)
            #expect(drops[.outOfWindow] == 1)
            // The app, restarted, carries on above its saved reservation.
            await app.close()
            let again = try deployment.fixture.app(deployment.members[0])
            try await again.connect()
            #expect(try await again.secret("k").value == "v")
            await again.close()
            await raw.close()
        }
    }

    @Test func everyAcknowledgedWriteSurvivesANATSServerRestartMidTraffic() async throws {
        try await Deployment.with(users: 1) { deployment in
            let app = deployment.apps[0]
            await app.setRequestTimeout(.seconds(2))
            let writer = Task { () -> [String] in
                var acknowledged: [String] = []
                for index in 0..<40 {
                    if (try? await app.addSecret("key-\(index)", value: "value-\(index)")) != nil { acknowledged.append("key-\(index)") }
                    try? await Task.sleep(for: .milliseconds(25))
                }
                return acknowledged
            }
            try await Task.sleep(for: .milliseconds(300))
            deployment.server.stop()
            // The same server again on the same port and resolver directory: clients and the host reconnect by themselves.
            let restarted = try OperatorModeServer(identity: deployment.fixture.identity, directory: deployment.serverDirectory, port: deployment.server.port)
            let acknowledged = await writer.value
            #expect(acknowledged.count >= 20)
            for key in acknowledged { #expect(try await app.secret(key).value == "value-" + key.dropFirst(4)) }
            restarted.stop()
        }
    }
}
