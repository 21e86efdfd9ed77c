import Testing
import VaultProtocol

@Suite struct ReplayWindowTests {
    @Test func inOrderThenDuplicate() {
        var window = ReplayWindow()
        #expect(window.highest == 0)
        for seq in UInt64(1)...5 {
            #expect(window.check(seq) == nil)
            window.accept(seq)
        }
        #expect(window.highest == 5)
        for seq in UInt64(1)...5 { #expect(window.check(seq) == .duplicate) }
        #expect(window.check(0) == .duplicate)
    }

    @Test func outOfOrderWithinTheWindowIsAcceptedOnce() {
        var window = ReplayWindow()
        window.accept(100)
        for seq: UInt64 in [99, 37, 98, 60] {
            #expect(window.check(seq) == nil)
            window.accept(seq)
            #expect(window.check(seq) == .duplicate)
        }
        #expect(window.highest == 100)
        #expect(window.check(36) == .tooOld)  // 100 − 64
        #expect(window.check(37) == .duplicate)
        #expect(window.check(38) == nil)
    }

    @Test func tooOldAndOutOfWindow() {
        var window = ReplayWindow()
        #expect(window.check(4096) == nil)
        #expect(window.check(4097) == .outOfWindow)
        window.accept(4096)
        #expect(window.check(4096 + 4096) == nil)
        #expect(window.check(4096 + 4097) == .outOfWindow)
        #expect(window.check(4096 - 64) == .tooOld)
        #expect(window.check(4096 - 63) == nil)
        #expect(window.check(UInt64.max) == .outOfWindow)
    }

    @Test func checkDoesNotMoveTheWindowAndRefusedSeqsAreIgnored() {
        var window = ReplayWindow()
        _ = window.check(10)
        #expect(window == ReplayWindow())
        window.accept(10)
        let before = window
        window.accept(10)  // duplicate
        window.accept(10 + 5000)  // out of window
        #expect(window == before)
    }

    @Test func aJumpClearsTheBitmap() {
        var window = ReplayWindow()
        window.accept(1)
        window.accept(200)
        #expect(window.check(1) == .tooOld)
        #expect(window.check(150) == nil)
        #expect(window.check(199) == nil)
        window.accept(263)  // 200 is now the oldest seq the window holds
        #expect(window.check(200) == .duplicate)
        #expect(window.check(201) == nil)
        window.accept(264)
        #expect(window.check(200) == .tooOld)
    }

    @Test func floorCountsAsSeen() {
        var window = ReplayWindow(floor: 1000)
        #expect(window.highest == 1000)
        #expect(window.check(1000) == .duplicate)
        #expect(window.check(990) == .duplicate)
        #expect(window.check(937) == .duplicate)
        #expect(window.check(936) == .tooOld)
        #expect(window.check(1001) == nil)
        window.accept(1003)
        #expect(window.check(1001) == nil)
        #expect(window.check(1000) == .duplicate)
        #expect(window.check(5099) == nil)
        #expect(window.check(5100) == .outOfWindow)
    }

    @Test func dropCounters() {
        var counters = VaultDropCounters()
        #expect(counters.total == 0)
        counters.record(.badTag)
        counters.record(.badTag)
        counters.record(.duplicate)
        #expect(counters[.badTag] == 2 && counters[.duplicate] == 1 && counters[.tooOld] == 0)
        #expect(counters.counts == [.badTag: 2, .duplicate: 1])
        #expect(counters.total == 3)
        #expect(VaultDropReason.allCases.map(\.rawValue) == ["malformed", "unknownSession", "badTag", "duplicate", "tooOld", "outOfWindow", "unreserved"])
    }
}
