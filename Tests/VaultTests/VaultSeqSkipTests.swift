import Foundation
import NATSClient
import Testing
import VaultProtocol

@testable import Vault
@testable import VaultClient

/// The app's side of issue 25: a vault restored from the database drops the rest of the block the app was in, so a
/// command that got no answer is retried in a new block — once for every command waiting, at most
/// `SeqReservation.maxSkipsWithoutAnswer` times until an answer arrives, and per session (a rotation starts again).
@Suite(.serialized)
struct VaultSeqSkipTests {
    @Test func aRetryAfterATakeoverStartsOneNewBlockForEveryWaitingCommand() async throws {
        let fixture = try await VaultFixture.make()
        let (first, member, app) = try await fixture.servedApp()
        _ = try await app.addSecret("k", value: "v")
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 100)

        await first.shutdown()
        let second = fixture.host("h2")
        await second.tick()
        await app.setRequestTimeout(.seconds(2))
        // Three commands at once: each first attempt (2, 3, 4) is dropped, their retries share one new block.
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<3 { group.addTask { try await app.secret("k").value } }
            for try await value in group { #expect(value == "v") }
        }
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 200)
        #expect(await second.dropCounts()[.tooOld] == 3)
        // Answered again: the next command goes through at once, in the same block.
        _ = try await app.addSecret("k2", value: "v2")
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 200)

        await app.close()
        await second.shutdown()
        await fixture.shutdown()
    }

    @Test func withoutAnyAnswerRetriesSkipAtMostFourBlocksThenOnceMoreAfterAnAnswer() async throws {
        let fixture = try await VaultFixture.make()
        let (first, member, app) = try await fixture.servedApp()
        _ = try await app.addSecret("k", value: "v")
        await first.shutdown()

        // No vault at all: 2 (block 100), 101, 201, 301, 401, 402, 403: four skips, then plain retries.
        await app.setRequestTimeout(.milliseconds(100))
        await app.setAttempts(7)
        await #expect(throws: VaultError.timeout) { try await app.secret("k") }
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 500)
        await #expect(throws: VaultError.timeout) { try await app.secret("k") }
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 500)

        // A vault restored at floor 100 takes the numbers in block 401…500 at once; answered, a later takeover
        // may skip again.
        let second = fixture.host("h2")
        await second.tick()
        await app.setRequestTimeout(.seconds(2))
        #expect(try await app.secret("k").value == "v")
        #expect(await second.dropCounts().values.reduce(0, +) == 0)
        await second.shutdown()
        let third = fixture.host("h3")
        await third.tick()
        #expect(try await app.secret("k").value == "v")
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 600)

        await app.close()
        await third.shutdown()
        await fixture.shutdown()
    }

    @Test func afterARotationTheNewSessionsBlocksAreSkippedTheSameWay() async throws {
        let fixture = try await VaultFixture.make()
        let (first, member, app) = try await fixture.servedApp()
        _ = try await app.addSecret("k", value: "v1")
        try await app.rotateSession()
        _ = try await app.updateSecret("k", value: "v2")
        // The new session's numbers start again at 1, in block 1…100.
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 100)

        await first.shutdown()
        let second = fixture.host("h2")
        await second.tick()
        await app.setRequestTimeout(.seconds(2))
        #expect(try await app.secret("k").value == "v2")
        #expect(try VaultReceiveReservationTests.session(fixture, member).sendReserved == 200)
        await app.close()
        await second.shutdown()
        await fixture.shutdown()
    }

    @Test func theSkipArithmetic() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-skip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let user = UUID().uuidString.lowercased()
        // Never connected: only the numbering is exercised (saved in `directory`).
        let app = try VaultConnection(
            userGUID: user, identityPublicKey: Data(repeating: 1, count: 32), connector: NATSServerConnector(urls: ["nats://127.0.0.1:1"]),
            keyStore: FileVaultSessionKeyStore(directory: directory))
        await app.adopt(VaultSessionState(
            userGUID: user, identityPublicKey: "", natsEndpoint: "", credentials: "", credentialID: "", credentialsExpireAt: 0,
            sessionID: "S1", sessionKey: "", sessionCreatedAt: 0, sessionExpiresAt: 0, sendReserved: 0, messagesSent: 0))

        #expect(try await app.nextSeq() == 1)
        #expect(await app.state?.sendReserved == 100)
        _ = try await app.nextSeq()
        _ = try await app.nextSeq()  // 3
        // Attempt 1 got no answer: the retry starts block 101…200; one of 2 doing the same afterwards does not skip.
        await app.skipReservedBlock(after: 1)
        #expect(try await app.nextSeq() == 101)
        #expect(await app.state?.sendReserved == 200)
        await app.skipReservedBlock(after: 2)
        #expect(try await app.nextSeq() == 102)
        // 101 lost too: the next block, up to four skips without an answer.
        await app.skipReservedBlock(after: 101)
        #expect(try await app.nextSeq() == 201)
        await app.skipReservedBlock(after: 201)
        await app.skipReservedBlock(after: 201)  // not twice for one block
        #expect(try await app.nextSeq() == 301)
        await app.skipReservedBlock(after: 301)
        #expect(try await app.nextSeq() == 401)
        await app.skipReservedBlock(after: 401)
        #expect(try await app.nextSeq() == 402)
        #expect(await app.state?.sendReserved == 500)
        // An answer allows skipping again.
        await app.answered(VaultEventResponse.success(eventID: "none", result: [:], timestamp: 0))
        await app.skipReservedBlock(after: 402)
        #expect(try await app.nextSeq() == 501)
        #expect(await app.state?.sendReserved == 600)
        #expect(try FileVaultSessionKeyStore(directory: directory).loadSession()?.sendReserved == 600)
    }
}

extension VaultConnection {
    /// A session as if bootstrapped (white box: no vault involved).
    func adopt(_ session: VaultSessionState) {
        state = session
        lastSeq = session.sendReserved
        skipsWithoutAnswer = 0
    }
}
