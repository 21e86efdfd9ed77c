import Foundation
import ProximityTransport
import Testing
import ProximityTransportTesting
@_exported import TesseraTestSupport

/// Deterministic message bytes of a given length.
func message(_ length: Int, seed: UInt8 = 1) -> Data {
    var out = Data(count: length)
    var x = UInt32(seed) &* 2_654_435_761 | 1
    for i in 0..<length {
        x ^= x << 13
        x ^= x >> 17
        x ^= x << 5
        out[i] = UInt8(truncatingIfNeeded: x)
    }
    return out
}

let testIdent = Data((0..<16).map { UInt8($0 * 7 + 3) })

func endpoint(_ mode: BLEMode, ident: Data? = testIdent) -> BLEEndpoint {
    BLEEndpoint(serviceUUID: UUID(), mode: mode, ident: ident)
}


/// A connected mdoc / reader pair over the simulated air.
struct ConnectedPair {
    let air: SimulatedAir
    let mdocTransport: BLETransport
    let readerTransport: BLETransport
    let mdoc: ConnectionHandle
    let reader: ConnectionHandle

    static func make(
        _ mode: BLEMode, air: SimulatedAir = SimulatedAir(),
        configuration: BLETransportConfiguration = BLETransportConfiguration()
    ) async throws -> ConnectedPair {
        let (mdocTransport, readerTransport) = air.makeTransportPair(configuration: configuration)
        let ep = endpoint(mode)
        let mdoc = try await mdocTransport.startAdvertising(ep)
        let reader = try await readerTransport.connect(ep)
        try await mdoc.waitForConnection()
        return ConnectedPair(
            air: air, mdocTransport: mdocTransport, readerTransport: readerTransport, mdoc: mdoc, reader: reader)
    }
}

/// Records the events a raw GATT end receives, so a test can play the peer byte by byte.
final class EventRecorder<Event: Sendable>: Sendable {
    let stream: AsyncStream<Event>
    let continuation: AsyncStream<Event>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    var handler: @Sendable (Event) -> Void {
        let continuation = self.continuation
        return { continuation.yield($0) }
    }

    /// The next event matching `predicate` (others are skipped).
    func next(where predicate: (Event) -> Bool) async -> Event? {
        for await event in stream where predicate(event) { return event }
        return nil
    }
}

/// A weak reference that can leave a `within` block, to check that something was released.
struct Weak<T: AnyObject & Sendable>: Sendable {
    weak var value: T?
    init(_ value: T) { self.value = value }
}
