import Foundation
import Testing

@testable import ProximityTransport
@testable import ProximityTransportTesting

/// The simulated air's connection-event scheduling (used by the proximity benchmark's realistic BLE setting).
@Suite struct ConnectionIntervalTests {
    let anchor = ContinuousClock.now
    let interval = Duration.microseconds(7_500)

    @Test func anIdleLinkWaitsForTheNextConnectionEvent() {
        let start = SimulatedLink.transmissionStart(
            now: anchor + .milliseconds(1), airFreeAt: nil, anchor: anchor, connectionInterval: interval)
        #expect(start == anchor + interval)
        let later = SimulatedLink.transmissionStart(
            now: anchor + .milliseconds(16), airFreeAt: anchor + .milliseconds(3), anchor: anchor, connectionInterval: interval)
        #expect(later == anchor + interval * 3)
    }

    @Test func aBusyLinkSendsRightAfterThePreviousPDU() {
        let busyUntil = anchor + .milliseconds(9)
        let start = SimulatedLink.transmissionStart(
            now: anchor + .milliseconds(8), airFreeAt: busyUntil, anchor: anchor, connectionInterval: interval)
        #expect(start == busyUntil)
        // Queued just after the previous PDU ended: still the same connection event.
        let late = anchor + .microseconds(9_300)
        #expect(
            SimulatedLink.transmissionStart(now: late, airFreeAt: busyUntil, anchor: anchor, connectionInterval: interval) == late)
    }

    @Test func onAnEventBoundaryOrWithoutAnIntervalItGoesAtOnce() {
        #expect(
            SimulatedLink.transmissionStart(now: anchor + interval, airFreeAt: nil, anchor: anchor, connectionInterval: interval)
                == anchor + interval)
        let now = anchor + .milliseconds(2)
        #expect(SimulatedLink.transmissionStart(now: now, airFreeAt: nil, anchor: anchor, connectionInterval: nil) == now)
    }
}
