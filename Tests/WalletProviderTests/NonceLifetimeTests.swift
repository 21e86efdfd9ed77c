import Foundation
import Testing

/// Nonces come from a pool stored ahead of time (NoncePool): each one handed out lives at least the 5-minute
/// lifetime, and none lives longer than the lifetime plus the pool's 30-second maximum age.
@Suite(.serialized)
struct NonceLifetimeTests {
    @Test func aNonceLivesFiveMinutesAndNotMuchLonger() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let start = fixture.clock.now()

        let kept = try await fixture.nonce()
        fixture.clock.set(start.addingTimeInterval(300))
        let (keptBody, _) = try await fixture.registrationBody(challenge: kept)
        #expect(try await fixture.request(.post, "/wallet-instance", json: keptBody, session: session).status == 204)

        let late = try await fixture.nonce()  // taken at start + 300 (stored then, or at most 30 s before)
        fixture.clock.set(start.addingTimeInterval(300 + 331))
        let (lateBody, _) = try await fixture.registrationBody(challenge: late)
        let answer = try await fixture.request(.post, "/wallet-instance", json: lateBody, session: session)
        #expect(answer.status == 403 && answer.error == "invalid_request")

        // Many nonces at once: all distinct, and each consumable once.
        var seen = Set<String>()
        for _ in 0..<600 { seen.insert(try await fixture.nonce()) }
        #expect(seen.count == 600)
    }
}
