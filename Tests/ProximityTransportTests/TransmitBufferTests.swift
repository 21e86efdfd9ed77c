import Foundation
import Synchronization
import Testing

@testable import ProximityTransport
@testable import ProximityTransportTesting

/// The simulated link's controller transmit buffers: a sender hands over several chunks at once, they arrive in
/// order when their air time is over, and a control PDU arrives behind them.
@Suite struct TransmitBufferTests {
    let characteristics = BLEServiceCharacteristics.mdocService

    /// What the GATT server was written, in order.
    final class Received: Sendable {
        let values = Mutex<[Data]>([])
        func withLock<T>(_ body: (inout [Data]) -> T) -> T { values.withLock { body(&$0) } }
    }

    private func link(received: Received) -> SimulatedLink {
        // 60 bytes of value + 3 of header at 10 080 bit/s: 50 ms a PDU, far above any scheduling delay.
        let configuration = SimulatedAirConfiguration(attMTU: 63, throughput: 10_080)
        return SimulatedLink(
            service: characteristics.serviceDefinition(serviceUUID: UUID(), identValue: nil),
            configuration: configuration,
            serverEvents: { event in
                if case .written(_, let bytes) = event { received.withLock { $0.append(bytes) } }
            },
            clientEvents: { _ in }, onDrop: {})
    }

    @Test func aSenderGoesOnWhileItsChunksAreOnAirAndTheyArriveInOrder() async throws {
        try await within {
            let received = Received()
            let link = link(received: received)
            let chunks = (0..<6).map { Data([UInt8($0)] + [UInt8](repeating: 0, count: 59)) }
            let clock = ContinuousClock()
            let start = clock.now
            // As many chunks as there are buffers are taken at once: none has arrived yet (each takes 50 ms).
            for chunk in chunks.prefix(SimulatedLink.transmitBuffers) {
                try await link.write(chunk, characteristic: characteristics.client2Server)
            }
            #expect(clock.now - start < .milliseconds(50))
            #expect(received.withLock { $0.isEmpty })
            // The next waits for a free buffer: the first chunk is on the other side by then.
            try await link.write(chunks[4], characteristic: characteristics.client2Server)
            #expect(clock.now - start >= .milliseconds(50))
            try await link.write(chunks[5], characteristic: characteristics.client2Server)
            // A control PDU (State) returns once delivered, behind every chunk: 7 PDUs back to back on air.
            try await link.write(Data([0x02]), characteristic: characteristics.state)
            #expect(clock.now - start >= .milliseconds(6 * 50))
            #expect(received.withLock { $0 } == chunks + [Data([0x02])])
        }
    }

    @Test func chunksStillQueuedWhenTheLinkDropsAreLost() async throws {
        try await within {
            let received = Received()
            let link = link(received: received)
            try await link.write(Data(repeating: 1, count: 60), characteristic: characteristics.client2Server)
            link.drop(notifyServer: false, notifyClient: false)
            await #expect(throws: TransportError.disconnected) {
                try await link.write(Data([0x02]), characteristic: characteristics.state)
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(received.withLock { $0.isEmpty })
        }
    }
}
