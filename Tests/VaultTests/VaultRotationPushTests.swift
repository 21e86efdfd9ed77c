import Foundation
import Testing
import VaultClient
import VaultProtocol

/// Pushes that cross a session rotation: the vault pushes under the new session as soon as it made it, which can
/// be before the app has its answer (or has adopted the new key). Found by the cluster failover test (an app
/// rotates by itself after 1000 messages); here many times over, on the in-process bus. Every message the sender's
/// vault reported delivered reaches the app, none is dropped as coming from an unknown session.
@Suite(.serialized)
struct VaultRotationPushTests {
    @Test func noPushIsLostWhileTheAppRotatesItsSession() async throws {
        let fixture = try await VaultFixture.make()
        let host = fixture.host("h1")
        let alice = try await fixture.enroll(), bob = try await fixture.enroll()
        await host.tick()
        let a = try fixture.app(alice), b = try fixture.app(bob)
        let received = PushCounter(listeningTo: b)
        do {
            try await a.bootstrap(credentials: alice.bootstrap, device: VaultConnection.device)
            try await b.bootstrap(credentials: bob.bootstrap, device: VaultConnection.device)
            let invite = try await a.createInvite(label: "Bob")
            #expect(try await b.acceptInvite(invite.invite).status == .active)

            // Four senders keep Bob's vault pushing while Bob's app rotates its session again and again.
            let senders = Task { () -> [String] in
                await withTaskGroup(of: [String].self) { group in
                    for sender in 0..<4 {
                        group.addTask {
                            var delivered: [String] = []
                            for n in 0..<100 {
                                let id = "m-\(sender)-\(n)"
                                if (try? await a.sendMessage("message \(n)", to: invite.connectionID, messageID: id).delivered) == true {
                                    delivered.append(id)
                                }
                            }
                            return delivered
                        }
                    }
                    var all: [String] = []
                    for await part in group { all += part }
                    return all
                }
            }
            var rotations = 0
            while rotations < 200 {
                try await b.rotateSession()
                rotations += 1
            }
            let delivered = await senders.value
            #expect(delivered.count >= 300, "too few messages delivered to test anything: \(delivered.count)")
            try? await VaultReliability.eventually("the delivered messages at Bob's app", within: 10) {
                Set(await received.ids()).isSuperset(of: delivered)
            }
            let missing = Set(delivered).subtracting(await received.ids())
            #expect(missing.isEmpty, "\(missing.count) of \(delivered.count) delivered messages never reached Bob's app")
            #expect(await b.drops[.unknownSession] == 0)
        } catch {
            received.stop()
            await a.close()
            await b.close()
            await host.shutdown()
            await fixture.shutdown()
            throw error
        }
        received.stop()
        await a.close()
        await b.close()
        await host.shutdown()
        await fixture.shutdown()
    }
}
