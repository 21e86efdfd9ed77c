import Foundation
import ProximityTransport
import Testing
import ProximityTransportTesting

/// Counters for benchmarks, and the simulated air's timing.
@Suite struct StatisticsTests {
    @Test(arguments: [BLEMode.mdocPeripheralServer, .mdocCentralClient])
    func bytesOnAirMatchTheFormula(mode: BLEMode) async throws {
        try await within {
            let air = SimulatedAir(configuration: SimulatedAirConfiguration(attMTU: 23))
            let pair = try await ConnectedPair.make(mode, air: air)
            try await pair.reader.send(message(100))
            _ = try await pair.mdoc.receive()
            try await pair.mdoc.send(message(5_000))
            _ = try await pair.reader.receive()

            let r = pair.reader.statistics
            let m = pair.mdoc.statistics
            // 100 bytes at 19 per chunk: 6 chunks; 100 + 6 headers + 6 × 3 ATT = 124.
            #expect(r.messagesSent == 1 && r.payloadBytesSent == 100 && r.chunksSent == 6 && r.bytesOnAirSent == 124)
            #expect(m.messagesReceived == 1 && m.payloadBytesReceived == 100 && m.chunksReceived == 6)
            #expect(m.bytesOnAirReceived == 124)
            // 5000 bytes: 264 chunks (263 × 19 = 4997, + 1 chunk of 3).
            #expect(m.chunksSent == 264 && m.bytesOnAirSent == 5_000 + 264 * 4)
            #expect(m.bytesOnAirSent == (try TransportStatistics.bytesOnAir(messageLength: 5_000, attMTU: 23)))
            #expect(r.chunksReceived == 264 && r.bytesOnAirReceived == m.bytesOnAirSent)
            #expect(r.totalBytesOnAir == m.totalBytesOnAir)
            #expect(r.attMTU == 23 && m.attMTU == 23)
            // The GATT client wrote State start (and in central client mode read Ident).
            let client = mode == .mdocPeripheralServer ? r : m
            let server = mode == .mdocPeripheralServer ? m : r
            #expect(client.controlPDUsSent == (mode == .mdocCentralClient ? 2 : 1))
            #expect(server.controlPDUsReceived == 1)
        }
    }

    @Test func throughputAndLatencyReallyTakeTime() async throws {
        try await within {
            let configuration = SimulatedAirConfiguration(
                attMTU: 185, throughput: 400_000, writeLatency: .milliseconds(1))
            let pair = try await ConnectedPair.make(.mdocPeripheralServer, air: SimulatedAir(configuration: configuration))
            let length = 5_000
            // 28 chunks, 5112 bytes on air: 5112 × 8 / 400 000 s + 28 × 1 ms ≈ 130 ms.
            let onAir = try TransportStatistics.bytesOnAir(messageLength: length, attMTU: 185)
            let expected = Duration.nanoseconds(Int64(onAir) * 8 * 1_000_000_000 / 400_000) + .milliseconds(28)
            let clock = ContinuousClock()
            let start = clock.now
            try await pair.mdoc.send(message(length))
            _ = try await pair.reader.receive()
            let elapsed = clock.now - start
            #expect(elapsed >= expected, "took \(elapsed), air time \(expected)")
            // No upper bound: on a loaded 2-core machine scheduling alone exceeded 10× the air time; `within` still
            // fails a hang.
        }
    }

    @Test func connectionLatencyDelaysConnect() async throws {
        try await within {
            let air = SimulatedAir(configuration: SimulatedAirConfiguration(connectionLatency: .milliseconds(60)))
            let clock = ContinuousClock()
            let start = clock.now
            _ = try await ConnectedPair.make(.mdocPeripheralServer, air: air)
            #expect(clock.now - start >= .milliseconds(60))
        }
    }
}
