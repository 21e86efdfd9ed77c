import Foundation
import ProximityTransport
import Testing
import ProximityTransportTesting

/// The simulated air's faults: every failure ends in a typed error on both sides, never in a hang.
@Suite struct FaultInjectionTests {
    static let modes: [BLEMode] = [.mdocPeripheralServer, .mdocCentralClient]
    static let request = message(2_000, seed: 1)
    static let response = message(5_000, seed: 2)

    /// Request then response at ATT_MTU 185: 12 + 28 chunks.
    static let totalChunks: Int = {
        let chunker = try? BLEChunker(attMTU: 185)
        return (chunker?.chunkCount(messageLength: request.count) ?? 0)
            + (chunker?.chunkCount(messageLength: response.count) ?? 0)
    }()

    /// Runs the exchange; returns the errors the reader and the mdoc end with (nil: that side completed).
    static func exchange(_ pair: ConnectedPair) async -> (reader: TransportError?, mdoc: TransportError?) {
        async let readerSide = transportError {
            try await pair.reader.send(request)
            #expect(try await pair.reader.receive() == response)
        }
        async let mdocSide = transportError {
            #expect(try await pair.mdoc.receive() == request)
            try await pair.mdoc.send(response)
        }
        return await (readerSide, mdocSide)
    }

    @Test func exchangeWithoutFaultsUsesTheExpectedChunks() async throws {
        #expect(Self.totalChunks == 40)
        try await within {
            let pair = try await ConnectedPair.make(.mdocPeripheralServer)
            let outcome = await Self.exchange(pair)
            #expect(outcome.reader == nil && outcome.mdoc == nil)
            #expect(pair.reader.statistics.chunksSent + pair.mdoc.statistics.chunksSent == Self.totalChunks)
        }
    }

    @Test(arguments: modes)
    func linkDropAfterEveryChunkCount(mode: BLEMode) async throws {
        for n in 0..<Self.totalChunks {
            // A hang detector, not a timing test (a step takes milliseconds): generous enough that a CI machine
            // whose cooperative threads other suites keep busy does not read as a hang.
            try await within(30) {
                let air = SimulatedAir(configuration: SimulatedAirConfiguration(
                    faults: SimulatedFaults(dropLinkAfterChunks: n)))
                let pair = try await ConnectedPair.make(mode, air: air)
                let outcome = await Self.exchange(pair)
                #expect(outcome.reader == .disconnected, "drop after \(n) chunks")
                #expect(outcome.mdoc == .disconnected, "drop after \(n) chunks")
                #expect(!pair.reader.isOpen && !pair.mdoc.isOpen)
                #expect(air.connectedLinkCount == 0)
            }
        }
    }

    @Test(arguments: [
        (ChunkCorruption.header(0x05), TransportError.protocolViolation("unknown chunk header 0x05")),
        (.truncate(length: 100), .protocolViolation("non-final chunk shorter than the maximum (100 < 182)")),
        (.header(0xFF), .protocolViolation("unknown chunk header 0xff")),
    ])
    func corruptedChunkIsAViolation(corruption: ChunkCorruption, expected: TransportError) async throws {
        try await within {
            // Chunk 3 is a non-final chunk of the request.
            let air = SimulatedAir(configuration: SimulatedAirConfiguration(
                faults: SimulatedFaults(corruptions: [3: corruption])))
            let pair = try await ConnectedPair.make(.mdocPeripheralServer, air: air)
            let outcome = await Self.exchange(pair)
            #expect(outcome.mdoc == expected)
            #expect(outcome.reader == .disconnected)
        }
    }

    @Test func headerFlippedToLastSplitsTheMessage() async throws {
        try await within {
            // 0x01 ^ 0x01 = 0x00: a full chunk that claims to be the last is valid chunking, so the request arrives
            // as two messages; session decryption (§9.1.1.5) is what rejects them.
            let air = SimulatedAir(configuration: SimulatedAirConfiguration(
                faults: SimulatedFaults(corruptions: [3: .flipByte(offset: 0, mask: 0x01)])))
            let pair = try await ConnectedPair.make(.mdocPeripheralServer, air: air)
            try await pair.reader.send(Self.request)
            #expect(try await pair.mdoc.receive() == Self.request.prefix(4 * 181))
            #expect(try await pair.mdoc.receive() == Self.request.dropFirst(4 * 181))
        }
    }

    @Test func flippedPayloadByteIsDeliveredAsIs() async throws {
        try await within {
            // The transport has no integrity check of its own (session encryption does, §9.1.1.5).
            let air = SimulatedAir(configuration: SimulatedAirConfiguration(
                faults: SimulatedFaults(corruptions: [1: .flipByte(offset: 10, mask: 0x80)])))
            let pair = try await ConnectedPair.make(.mdocCentralClient, air: air)
            try await pair.reader.send(Self.request)
            let received = try await pair.mdoc.receive()
            let differences = zip(received, Self.request).enumerated().filter { $0.element.0 != $0.element.1 }
            #expect(received.count == Self.request.count)
            #expect(differences.map(\.offset) == [181 + 9])
        }
    }

    @Test(arguments: modes)
    func stalledLinkAndCancellation(mode: BLEMode) async throws {
        try await within {
            let air = SimulatedAir(configuration: SimulatedAirConfiguration(
                faults: SimulatedFaults(stallAfterChunks: 5)))
            let pair = try await ConnectedPair.make(mode, air: air)
            try await pair.reader.send(Self.request)  // accepted, but chunks 5… never arrive
            let waiting = Task { await transportError { _ = try await pair.mdoc.receive() } }
            try await Task.sleep(for: .milliseconds(50))
            waiting.cancel()
            #expect(await waiting.value == .closed)
            // Cancelling a receive leaves the connection open; a time limit works too.
            #expect(pair.mdoc.isOpen)
            #expect(await transportError { _ = try await pair.mdoc.receive(timeout: .milliseconds(30)) } == .timedOut)
            // An already cancelled task does not wait at all.
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await transportError { _ = try await pair.mdoc.receive() }
            }
            #expect(await cancelled.value == .closed)
        }
    }

    @Test func waitForConnectionHonoursCancellationAndTimeLimit() async throws {
        try await within {
            let air = SimulatedAir()
            let mdoc = try await BLETransport(radio: air.makeRadio()).startAdvertising(endpoint(.mdocPeripheralServer))
            let waiting = Task { await transportError { try await mdoc.waitForConnection() } }
            try await Task.sleep(for: .milliseconds(20))
            waiting.cancel()
            #expect(await waiting.value == .closed)
            // Cancelling the wait does not close the handle.
            #expect(mdoc.isOpen)
            #expect(air.advertisedServices.count == 1)
            mdoc.close()
            #expect(air.advertisedServices.isEmpty)

            let limited = BLETransport(
                radio: air.makeRadio(), configuration: BLETransportConfiguration(connectionTimeout: .milliseconds(40)))
            let scanning = try await limited.startAdvertising(endpoint(.mdocCentralClient))
            #expect(await transportError { try await scanning.waitForConnection() } == .timedOut)
            #expect(!scanning.isOpen)
            let readerWaiting = await transportError { _ = try await limited.connect(endpoint(.mdocCentralClient)) }
            #expect(readerWaiting == .timedOut)
            #expect(air.advertisedServices.isEmpty)
        }
    }

    @Test func cancellingConnectStopsTheScan() async throws {
        try await within {
            let air = SimulatedAir()
            let reader = BLETransport(
                radio: air.makeRadio(), configuration: BLETransportConfiguration(scanTimeout: .seconds(60)))
            let connecting = Task { await transportError { _ = try await reader.connect(endpoint(.mdocPeripheralServer)) } }
            try await Task.sleep(for: .milliseconds(20))
            connecting.cancel()
            #expect(await connecting.value == .closed)
        }
    }

    @Test(arguments: modes)
    func outOfRangeDropsBothSides(mode: BLEMode) async throws {
        try await within {
            let pair = try await ConnectedPair.make(mode)
            async let mdocOutcome = transportError { _ = try await pair.mdoc.receive() }
            async let readerOutcome = transportError { _ = try await pair.reader.receive() }
            try await Task.sleep(for: .milliseconds(20))
            pair.air.dropAllLinks()
            #expect(await mdocOutcome == .disconnected)
            #expect(await readerOutcome == .disconnected)
            #expect(await transportError { try await pair.reader.send(Data([1])) } == .disconnected)
        }
    }

    @Test(arguments: modes)
    func closingOneSideDisconnectsTheOther(mode: BLEMode) async throws {
        try await within {
            let pair = try await ConnectedPair.make(mode)
            pair.mdoc.close()
            pair.mdoc.close()  // idempotent
            #expect(await transportError { _ = try await pair.reader.receive() } == .disconnected)
            #expect(await transportError { _ = try await pair.mdoc.receive() } == .closed)
            #expect(await transportError { try await pair.mdoc.send(Data()) } == .closed)
            #expect(await transportError { try await pair.mdoc.waitForConnection() } == .closed)
        }
    }
}
