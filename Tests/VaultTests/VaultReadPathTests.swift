import Foundation
import Testing
import VaultClient
import VaultProtocol

@testable import Vault

/// Reads run beside the command loop and may be served from the running vault's record cache: neither may ever
/// answer with a value older than a write the app already saw acknowledged.
@Suite(.serialized)
struct VaultReadPathTests {
    @Test func concurrentReadsNeverSeeAValueOlderThanAnAcknowledgedWrite() async throws {
        let fixture = try await VaultFixture.make()
        let host = fixture.host("h1")
        let member = try await fixture.enroll()
        await host.tick()
        let app = try fixture.app(member)
        try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
        _ = try await app.addSecret("counter", value: "0")
        let acknowledged = Acknowledged()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for n in 1...60 {
                    _ = try await app.updateSecret("counter", value: String(n))
                    await acknowledged.set(n)
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    while await acknowledged.value < 60 {
                        let floor = await acknowledged.value
                        let read = try await app.secret("counter")
                        #expect(Int(read.value) ?? -1 >= floor, "read \(read.value) after \(floor) was acknowledged")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await app.secret("counter").value == "60")
        // A deleted secret is gone for the next read too, and a missing one is not found twice.
        _ = try await app.deleteSecret("counter")
        for _ in 0..<2 {
            await #expect(throws: VaultError.vault(code: "not_found", message: "secret counter does not exist")) { try await app.secret("counter") }
        }
        _ = try await app.addSecret("counter", value: "again")
        #expect(try await app.secret("counter").value == "again")
        await host.shutdown()
        await fixture.shutdown()
    }

    @Test func theCacheDropsAReadThatRacedAnInvalidationAndKeepsToItsBudget() {
        let cache = VaultRecordCache(budget: 90)
        let row = RecordRow(id: "r1", name_sealed: "n", value_sealed: String(repeating: "v", count: 40), version: 1, updated_at: 0)
        let before = cache.generation
        cache.invalidate()  // a write committed while the read was on its way
        cache.store("r1", row, readAt: before)
        #expect(cache.lookup("r1") == nil)
        cache.store("r1", row, readAt: cache.generation)
        #expect(cache.lookup("r1")??.version == 1)
        cache.store("r-missing", nil, readAt: cache.generation)
        if case .some(.none) = cache.lookup("r-missing") {} else { Issue.record("the absence of r-missing is not kept") }
        // Past the budget the cache starts over; a row larger than the budget is never kept.
        cache.store("r2", row, readAt: cache.generation)
        #expect(cache.lookup("r1") == nil && cache.lookup("r2") != nil)
        let huge = RecordRow(id: "r3", name_sealed: "n", value_sealed: String(repeating: "v", count: 200), version: 1, updated_at: 0)
        cache.store("r3", huge, readAt: cache.generation)
        #expect(cache.lookup("r3") == nil)
    }
}

private actor Acknowledged {
    var value = 0
    func set(_ n: Int) { value = n }
}
