import Foundation
import Ledger
import LedgerProtocol
import TesseraJOSE
import Testing
import VaultClient

/// Enrollment and authentication over real HTTP, and every refusal with its own error.
@Suite(.serialized)
struct LedgerFlowTests {
    @Test(arguments: LedgerDatabases.all)
    func enrollThenAuthenticateRotatesCEKAndLAT(database: String) async throws {
        let fixture = try await LedgerFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let client = fixture.client()
        let enrolled = try await client.enroll(
            ledger: fixture.server.baseURL, invitation: try await fixture.server.invite(), password: LedgerFixture.password,
            deviceID: "d1", deviceType: "linux")
        #expect(enrolled.transactionKeys == 19)  // 20 handed out, one spent on the password
        let before = try client.store.load()
        #expect(before.blob.cekVersion == 1 && before.latVersion == 1)

        let first = try await client.authenticate(password: LedgerFixture.password)
        let after = try client.store.load()
        #expect(first.cekVersion == 2 && first.latVersion == 2)
        #expect(after.latToken != before.latToken && after.blob != before.blob)
        #expect(!after.transactionKeys.contains { $0.keyID == first.usedKeyID })
        // Keys are topped up by 10 when 10 or fewer remain: 19 → 18 … → 10 → +10.
        var last = first
        for _ in 0..<9 { last = try await client.authenticate(password: LedgerFixture.password) }
        #expect(last.transactionKeys == 19)
        #expect(last.cekVersion == 11)
    }

    @Test func anInvitationIsSingleUse() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        let code = try await fixture.server.invite()
        _ = try await fixture.client().enroll(ledger: fixture.server.baseURL, invitation: code, password: LedgerFixture.password, deviceID: "a", deviceType: "linux")
        await #expect(throws: VaultError.ledger(status: 403, error: "invalid_invitation", description: "the invitation code is unknown, used or expired")) {
            _ = try await fixture.client().enroll(ledger: fixture.server.baseURL, invitation: code, password: LedgerFixture.password, deviceID: "b", deviceType: "linux")
        }
    }

    /// Codes go on command lines (`vault enroll --invitation CODE`): letters and digits only, never a leading `-` that
    /// an argument parser reads as an option (base64url codes did that once in 64; CI hit it).
    @Test func invitationCodesAreBase32LettersAndDigits() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        var codes = Set<String>()
        for _ in 0..<200 {
            let code = try await fixture.server.invite()
            #expect(code.utf8.count == 26 && code.utf8.allSatisfy { (0x41...0x5a).contains($0) || (0x32...0x37).contains($0) }, "\(code)")
            codes.insert(code)
        }
        #expect(codes.count == 200)
    }

    @Test func aWrongPasswordFailsAndFiveLockTheAccount() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        for _ in 0..<5 {
            await #expect(throws: VaultError.ledger(status: 401, error: "invalid_credentials", description: "the password is wrong")) {
                _ = try await client.authenticate(password: "not the password at all")
            }
        }
        // Locked: even the right password is refused, at the action request already.
        do {
            _ = try await client.authenticate(password: LedgerFixture.password)
            Issue.record("a locked account authenticated")
        } catch VaultError.ledger(let status, let error, _) {
            #expect(status == 429 && error == "account_locked")
        }
    }

    /// After a lockout has run out, the count starts again: one more wrong password does not lock at once.
    @Test func theFailureCountRestartsAfterALockout() async throws {
        let clock = LedgerTestClock(Date())
        let fixture = try await LedgerFixture { $0.clock = clock }
        defer { Task { await fixture.shutdown() } }
        // The device signs with the same clock as the ledger's (its timestamps must stay within ±5 minutes).
        let client = VaultClient(store: fixture.client().store, http: fixture.http, clock: clock)
        _ = try await client.enroll(
            ledger: fixture.server.baseURL, invitation: try await fixture.server.invite(), password: LedgerFixture.password,
            deviceID: "d", deviceType: "linux")
        for _ in 0..<5 { _ = try? await client.authenticate(password: "not the password at all") }
        clock.advance(by: 15 * 60 + 1)
        await #expect(throws: VaultError.ledger(status: 401, error: "invalid_credentials", description: "the password is wrong")) {
            _ = try await client.authenticate(password: "not the password at all")
        }
        let result = try await client.authenticate(password: LedgerFixture.password)  // not locked
        #expect(result.cekVersion == 2)
    }

    @Test func aLedgerThatCannotProveTheLATIsRefusedBeforeAnythingIsSent() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        var state = try client.store.load()
        state.latToken = Base64URL.encode(Data(repeating: 7, count: 32))  // the device's LAT no longer matches the ledger's
        try client.store.save(state)
        await #expect(throws: VaultError.latMismatch) { _ = try await client.authenticate(password: LedgerFixture.password) }
        #expect(try client.store.load() == state)  // nothing replaced
    }

    @Test func actionTokensAndKeysAreSingleUseAndBound() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled("a")
        let state = try client.store.load()
        let kdf = try KDFParameters(json: try await fixture.actionRequest(state).0.json?["kdf"]?.objectValue)

        // key_id different from the token's.
        var (action, _) = try await fixture.actionRequest(state)
        var token = try #require(action.json?["action_token"]?.stringValue)
        var jti = try #require(action.json?["jti"]?.stringValue)
        var keyID = try #require(action.json?["use_key_id"]?.stringValue)
        let otherKey = try #require(state.transactionKeys.first { $0.keyID != keyID }?.keyID)
        var answer = try await fixture.post("/api/v1/auth/execute", try fixture.executeBody(state, jti: jti, keyID: otherKey, kdf: kdf), headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 403 && answer.error == "key_mismatch")
        // The token is spent now: replaying it is refused.
        answer = try await fixture.post("/api/v1/auth/execute", try fixture.executeBody(state, jti: jti, keyID: keyID, kdf: kdf), headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 401 && answer.error == "invalid_token")

        // Tampered AAD (another user's guid in it): the box does not open.
        (action, _) = try await fixture.actionRequest(state)
        token = try #require(action.json?["action_token"]?.stringValue)
        jti = try #require(action.json?["jti"]?.stringValue)
        keyID = try #require(action.json?["use_key_id"]?.stringValue)
        answer = try await fixture.post("/api/v1/auth/execute", try fixture.executeBody(state, jti: jti, keyID: keyID, aadUser: "someone-else", kdf: kdf), headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 403 && answer.error == "decryption_failed")
        // That key is spent: a fresh token bound to it cannot exist, and using it under another token is key_mismatch
        // or key_used. Request a new token and try to reuse the spent key by sealing to it.
        (action, _) = try await fixture.actionRequest(state)
        token = try #require(action.json?["action_token"]?.stringValue)
        jti = try #require(action.json?["jti"]?.stringValue)
        let nextKey = try #require(action.json?["use_key_id"]?.stringValue)
        #expect(nextKey != keyID)

        // A blob from another user.
        let other = try await fixture.enrolled("b")
        let otherState = try other.store.load()
        answer = try await fixture.post("/api/v1/auth/execute", try fixture.executeBody(state, jti: jti, keyID: nextKey, blob: otherState.blob, kdf: kdf), headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 403 && answer.error == "decryption_failed")

        // The right password with the right bindings still works afterwards.
        _ = try await client.authenticate(password: LedgerFixture.password)
    }

    @Test func deviceSignaturesNoncesAndExpiry() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        let state = try client.store.load()
        var (answer, _) = try await fixture.actionRequest(state, tamper: true)
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        (answer, _) = try await fixture.actionRequest(state, timestamp: Date().addingTimeInterval(-600))
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        (answer, _) = try await fixture.actionRequest(state, nonce: "once")
        #expect(answer.status == 200)
        (answer, _) = try await fixture.actionRequest(state, nonce: "once")
        #expect(answer.status == 409 && answer.error == "replayed_nonce")
    }

    @Test func anExpiredActionTokenIsRefused() async throws {
        let clock = LedgerTestClock(Date())
        let fixture = try await LedgerFixture { $0.clock = clock }
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        let state = try client.store.load()
        let (action, _) = try await fixture.actionRequest(state)
        let token = try #require(action.json?["action_token"]?.stringValue)
        let jti = try #require(action.json?["jti"]?.stringValue)
        let keyID = try #require(action.json?["use_key_id"]?.stringValue)
        let kdf = try KDFParameters(json: action.json?["kdf"]?.objectValue)
        clock.advance(by: 301)
        let answer = try await fixture.post("/api/v1/auth/execute", try fixture.executeBody(state, jti: jti, keyID: keyID, kdf: kdf), headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 401 && answer.error == "invalid_token")
    }

    /// 50 parallel executions with one action token: exactly one succeeds.
    @Test(arguments: LedgerDatabases.all)
    func oneActionTokenWinsOnce(database: String) async throws {
        let fixture = try await LedgerFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        let state = try client.store.load()
        let (action, _) = try await fixture.actionRequest(state)
        let token = try #require(action.json?["action_token"]?.stringValue)
        let jti = try #require(action.json?["jti"]?.stringValue)
        let keyID = try #require(action.json?["use_key_id"]?.stringValue)
        let kdf = try KDFParameters(json: action.json?["kdf"]?.objectValue)
        let body = try fixture.executeBody(state, jti: jti, keyID: keyID, kdf: kdf)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await fixture.post("/api/v1/auth/execute", body, headers: [("Authorization", "Bearer \(token)")]).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 != 200 }.allSatisfy { $0 == 401 })
    }
}

import Synchronization
import TesseraCore

final class LedgerTestClock: TesseraClock {
    private let instant: Mutex<Date>
    init(_ start: Date) { instant = Mutex(start) }
    func now() -> Date { instant.withLock { $0 } }
    func advance(by seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
