import Foundation
import Testing
import TesseraCore

@testable import NATSClient

/// Account JWT `revocations`: how they are written, and what nats-server does with them.
@Suite("account revocations")
struct RevocationEncodingTests {
    let instant = Date(timeIntervalSince1970: 1_750_000_000)

    @Test("`revocations` is written only when it lists someone, under the nats-server JWT v2 name")
    func encoding() throws {
        let operatorKey = try NKeyPair(type: .operator, random: SeededRandomSource(seed: 1))
        let account = try NKeyPair(type: .account, random: SeededRandomSource(seed: 2))
        let user = try NKeyPair(type: .user, random: SeededRandomSource(seed: 3))
        let plain = try AccountClaims(account: account.publicKeyString, name: "a").encode(signedBy: operatorKey, clock: FixedClock(instant))
        var emptied = AccountClaims(account: account.publicKeyString, name: "a")
        emptied.nats.revocations = [:]
        // An empty list is left out: the same JWT, byte for byte, as one without the field.
        #expect(try emptied.encode(signedBy: operatorKey, clock: FixedClock(instant)) == plain)
        #expect(try natsObject(plain)["revocations"] == nil)

        let revoking = try AccountClaims(account: account.publicKeyString, name: "a", revocations: [user.publicKeyString: 1_749_999_000])
            .encode(signedBy: operatorKey, clock: FixedClock(instant))
        #expect(try natsObject(revoking)["revocations"] as? [String: Int] == [user.publicKeyString: 1_749_999_000])
        let decoded = try NATSJWT<AccountClaims>(revoking).claims
        #expect(decoded.nats.revocations == [user.publicKeyString: 1_749_999_000])
        #expect(decoded.revokes(user: user.publicKeyString, issuedAt: 1_749_998_999))
        #expect(decoded.revokes(user: user.publicKeyString, issuedAt: 1_749_999_000))
        #expect(!decoded.revokes(user: user.publicKeyString, issuedAt: 1_749_999_001))
        #expect(!decoded.revokes(user: "UOTHER", issuedAt: 0))
        let all = AccountClaims(account: account.publicKeyString, name: "a", revocations: [AccountClaims.allUsers: 100])
        #expect(all.revokes(user: user.publicKeyString, issuedAt: 100))
        #expect(!all.revokes(user: user.publicKeyString, issuedAt: 101))
    }

    func natsObject(_ jwt: String) throws -> [String: Any] {
        let payload = try #require(Base64URL.decodeIfValid(jwt.split(separator: ".")[1]))
        let json = try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        return try #require(json["nats"] as? [String: Any])
    }
}

/// Observed with nats-server 2.9.10 (the Debian package), which follows `isRevoked` in server/accounts.go: pushing
/// an account JWT whose `revocations` lists a user sends that user's live connection `-ERR 'User Authentication
/// Revoked'` and closes it; a reconnect with a JWT issued at or before the revocation time is refused with
/// `Authorization Violation`; a JWT for the same key issued a second later is accepted.
@Suite("revocations on nats-server (operator mode)", .serialized, .timeLimit(.minutes(2)))
struct RevocationServerTests {
    let fixture: OperatorFixture
    let server: NATSServerProcess

    init() throws {
        fixture = try OperatorFixture()
        server = try NATSServerProcess(fixture: fixture)
    }

    @Test("a pushed revocation closes the live connection and its reconnect is refused")
    func revocationClosesAndRefuses() async throws {
        let account = try NKeyPair(type: .account, random: SystemRandomSource())
        let now = Date()
        let seconds = Int64(now.timeIntervalSince1970)
        let system = try await connectedClient([server.url], try fixture.systemUser)
        func push(_ revocations: [String: Int64]) async throws {
            _ = try await system.pushAccountJWT(
                try AccountClaims(account: account.publicKeyString, name: "vault-peer", revocations: revocations)
                    .encode(signedBy: fixture.operatorKey, clock: SystemClock()))
        }
        try await push([:])
        let userKey = try NKeyPair(type: .user, random: SystemRandomSource())
        let credentials = try userCredentials(signedBy: account, userKey: userKey, issuedAt: now.addingTimeInterval(-30))
        let client = try await connectedClient([server.url], credentials) {
            $0.maxReconnectAttempts = 1
            $0.reconnectWait = .milliseconds(20)
        }
        let events = await client.events()
        let inbox = try await client.subscribe(to: "MessageSpace.peer.forOwner.>")
        try await client.flush()

        try await push([userKey.publicKeyString: seconds - 5])
        let error = try await waitForEvent(events) { if case .error = $0 { return true } else { return false } }
        #expect(error == .error(.authorizationViolation("User Authentication Revoked")))
        _ = try await waitForEvent(events) { if case .disconnected = $0 { return true } else { return false } }
        // One reconnect attempt, refused, and the client gives up: its subscriptions end.
        _ = try await waitForEvent(events) { $0 == .closed }
        #expect(try await awaitEnd(of: inbox) == nil)

        do {
            _ = try await connectedClient([server.url], credentials)
            Issue.record("the revoked user reconnected")
        } catch {
            #expect(error as? NATSError == .authorizationViolation("Authorization Violation"))
        }
        // `iat` equal to the revocation time is revoked too; a later one is not.
        await #expect(throws: NATSError.authorizationViolation("Authorization Violation")) {
            _ = try await connectedClient(
                [server.url], try userCredentials(signedBy: account, userKey: userKey, issuedAt: now.addingTimeInterval(-5)))
        }
        let renewed = try await connectedClient(
            [server.url], try userCredentials(signedBy: account, userKey: userKey, issuedAt: now.addingTimeInterval(-4)))
        await renewed.close()

        // Lifting the revocation (a newer account JWT without it) lets the old JWT in again.
        try await push([:])
        let again = try await connectedClient([server.url], credentials)
        await again.close()
        await system.close()
    }
}
