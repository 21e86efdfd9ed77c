import Testing
import VaultProtocol

/// The block rule both ends share (issue 25): blocks 1…100, 101…200, …, and a window restored at a block's end
/// refusing every number of the blocks before.
@Suite struct SeqReservationTests {
    @Test func blocksEndOnMultiplesOfTheBlockSize() {
        #expect(SeqReservation.blockSize == 100)
        #expect(SeqReservation.blockEnd(of: 0) == 0)
        #expect(SeqReservation.blockEnd(of: 1) == 100)
        #expect(SeqReservation.blockEnd(of: 99) == 100)
        #expect(SeqReservation.blockEnd(of: 100) == 100)
        #expect(SeqReservation.blockEnd(of: 101) == 200)
        #expect(SeqReservation.blockEnd(of: 4096) == 4100)
        // The first number after a block's end starts the next block.
        for end: UInt64 in [100, 200, 12_300] { #expect(SeqReservation.blockEnd(of: end + 1) == end + 100) }
        // The last block is cut at the top instead of wrapping round to a small number.
        let lastFullBlockEnd = UInt64.max / 100 * 100  // …600; 601…615 would end past UInt64.max
        #expect(SeqReservation.blockEnd(of: UInt64.max - 50) == lastFullBlockEnd)
        #expect(SeqReservation.blockEnd(of: lastFullBlockEnd) == lastFullBlockEnd)
        #expect(SeqReservation.blockEnd(of: lastFullBlockEnd + 1) == UInt64.max)
        #expect(SeqReservation.blockEnd(of: UInt64.max) == UInt64.max)
    }

    @Test func skipsLeaveMostOfTheWindowAhead() {
        let skipped = UInt64(SeqReservation.maxSkipsWithoutAnswer) * SeqReservation.blockSize
        #expect(skipped + SeqReservation.blockSize <= ReplayWindow.maxAdvance / 2)
    }

    @Test func aWindowRestoredAtAFloorRefusesEverySeqUpToIt() {
        for floor: UInt64 in [100, 200, 4100] {
            let window = ReplayWindow(floor: floor)
            for seq in UInt64(0)...floor {
                let reason = window.check(seq)
                #expect(reason == .duplicate || reason == .tooOld, "seq \(seq) under floor \(floor): \(String(describing: reason))")
            }
            #expect(window.check(floor + 1) == nil)
            #expect(window.check(floor + ReplayWindow.maxAdvance) == nil)
            #expect(window.check(floor + ReplayWindow.maxAdvance + 1) == .outOfWindow)
        }
    }

    @Test func theDropReasonsIncludeAnUnsavedReservation() {
        var counters = VaultDropCounters()
        counters.record(.unreserved)
        #expect(counters[.unreserved] == 1 && counters.total == 1)
    }
}
