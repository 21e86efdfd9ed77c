#if !canImport(CoreBluetooth)
import CoreBluetoothDouble
import Foundation
import ProximityTransport
import Synchronization
import Testing
@_exported import TesseraTestSupport

/// Collects the events an adapter hands to its `GATTRadio` user, in order.
final class EventLog<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    var handler: @Sendable (Event) -> Void { { [self] event in events.withLock { $0.append(event) } } }

    var all: [Event] { events.withLock { $0 } }
}

struct StepTimedOut: Error, CustomStringConvertible {
    let what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` until it holds (every 2 ms, at most `seconds`); what the adapters do in their own tasks has
/// no other completion signal. The default bound is generous: it only matters when a test fails, and a loaded
/// 2-core CI machine can starve the polling task for seconds.
func eventually(
    _ what: String, within seconds: Double = 30, _ condition: @Sendable () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(seconds)
    while !condition() {
        guard clock.now < deadline else { throw StepTimedOut(what: what) }
        try await Task.sleep(for: .milliseconds(2))
    }
}

/// For a check that nothing (more) happens after an adapter call that works on the adapter's own queue: gives that
/// queue time to run, then waits for the double to be idle.
func quiesce(_ host: BluetoothHost) async {
    try? await Task.sleep(for: .milliseconds(20))
    await host.air.settle()
}

/// Deterministic bytes.
func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
    var state = UInt32(seed) &* 2_654_435_761 | 1
    return Data((0..<count).map { _ in
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        return UInt8(truncatingIfNeeded: state)
    })
}

let ident = Data((0..<16).map { UInt8($0 * 7 + 3) })
let mdoc = BLEServiceCharacteristics.mdocService
let reader = BLEServiceCharacteristics.mdocReaderService

extension UUID {
    /// How a host records this UUID (`CBUUID.uuidString`).
    var cb: String { uuidString }
}

extension Array where Element == CoreBluetoothCall {
    /// The `updateValue` results, in order.
    var updateResults: [Bool] {
        compactMap { call in
            if case .updateValue(_, _, _, let accepted) = call { return accepted }
            return nil
        }
    }

    /// The Write Commands' values, in order.
    var writeCommands: [Data] {
        compactMap { call in
            if case .writeValue(let data, _, .withoutResponse) = call { return data }
            return nil
        }
    }
}
#endif
