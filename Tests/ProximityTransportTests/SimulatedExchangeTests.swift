import Foundation
import ProximityTransport
import Testing
import ProximityTransportTesting

/// Both modes end to end over the simulated air (§8.3.3.1.1.4–7).
@Suite struct SimulatedExchangeTests {
    static let modes: [BLEMode] = [.mdocPeripheralServer, .mdocCentralClient]

    @Test(arguments: modes)
    func requestAndResponseOfSeveralKilobytes(mode: BLEMode) async throws {
        try await within {
            let pair = try await ConnectedPair.make(mode)
            #expect(pair.mdoc.role == .mdoc && pair.reader.role == .mdocReader)
            #expect(pair.mdoc.isOpen && pair.reader.isOpen)
            let request = message(3_000, seed: 7)
            let response = message(9_500, seed: 9)
            try await pair.reader.send(request)
            #expect(try await pair.mdoc.receive() == request)
            try await pair.mdoc.send(response)
            #expect(try await pair.reader.receive() == response)
            // A second round, both sides sending before receiving.
            try await pair.reader.send(message(1, seed: 3))
            try await pair.mdoc.send(Data())
            #expect(try await pair.mdoc.receive() == message(1, seed: 3))
            #expect(try await pair.reader.receive() == Data())
        }
    }

    @Test(arguments: modes)
    func sendEndEndsThePeersSessionAfterItsMessages(mode: BLEMode) async throws {
        try await within {
            let pair = try await ConnectedPair.make(mode)
            try await pair.mdoc.send(message(700))
            await pair.mdoc.sendEnd()
            #expect(!pair.mdoc.isOpen)
            // The message sent before End is still delivered, then the session has ended.
            #expect(try await pair.reader.receive() == message(700))
            #expect(await transportError { _ = try await pair.reader.receive() } == .sessionEnded)
            #expect(await transportError { try await pair.reader.send(Data([1])) } == .sessionEnded)
            #expect(!pair.reader.isOpen)
            // The local side sees its own handle closed.
            #expect(await transportError { _ = try await pair.mdoc.receive() } == .closed)
        }
    }

    @Test(arguments: modes)
    func readerEndWakesAWaitingMdoc(mode: BLEMode) async throws {
        try await within {
            let pair = try await ConnectedPair.make(mode)
            async let outcome = transportError { _ = try await pair.mdoc.receive() }
            try await Task.sleep(for: .milliseconds(20))
            await pair.reader.sendEnd()
            #expect(await outcome == .sessionEnded)
        }
    }

    /// A send queued before the connection goes out only after State start (repeated: it once raced the start).
    @Test(arguments: modes)
    func sendWaitsForTheConnection(mode: BLEMode) async throws {
        try await within(30) {
            for _ in 0..<100 {
                let air = SimulatedAir()
                let (mdocTransport, readerTransport) = air.makeTransportPair()
                let ep = endpoint(mode)
                let mdoc = try await mdocTransport.startAdvertising(ep)
                // Queued before any reader is there.
                async let sent: Void = mdoc.send(message(500))
                let reader = try await readerTransport.connect(ep)
                try await sent
                #expect(try await reader.receive() == message(500))
            }
        }
    }

    @Test func peripheralServerModeReaderFindsNothing() async throws {
        try await within {
            let air = SimulatedAir()
            let reader = BLETransport(
                radio: air.makeRadio(), configuration: BLETransportConfiguration(scanTimeout: .milliseconds(30)))
            let ep = endpoint(.mdocPeripheralServer)
            #expect(await transportError { _ = try await reader.connect(ep) } == .serviceNotFound(ep.serviceUUID))
            #expect(air.connectedLinkCount == 0)
        }
    }

    @Test func scanningReaderFindsALateMdoc() async throws {
        try await within {
            let air = SimulatedAir()
            let (mdocTransport, readerTransport) = air.makeTransportPair()
            let ep = endpoint(.mdocPeripheralServer)
            async let reader = readerTransport.connect(ep)
            try await Task.sleep(for: .milliseconds(50))
            let mdoc = try await mdocTransport.startAdvertising(ep)
            let r = try await reader
            try await mdoc.waitForConnection()
            try await r.send(Data([1, 2, 3]))
            #expect(try await mdoc.receive() == Data([1, 2, 3]))
        }
    }

    @Test func identMismatchInCentralClientMode() async throws {
        try await within {
            let air = SimulatedAir()
            let (mdocTransport, _) = air.makeTransportPair()
            let readerTransport = BLETransport(radio: air.makeRadio())
            let uuid = UUID()
            var wrong = testIdent
            wrong[15] ^= 0x01
            let readerTask = Task {
                await transportError {
                    _ = try await readerTransport.connect(
                        BLEEndpoint(serviceUUID: uuid, mode: .mdocCentralClient, ident: wrong))
                }
            }
            let mdoc = try await mdocTransport.startAdvertising(
                BLEEndpoint(serviceUUID: uuid, mode: .mdocCentralClient, ident: testIdent))
            // The mdoc reads the reader's Ident, finds another value and leaves.
            #expect(await transportError { try await mdoc.waitForConnection() } == .identMismatch)
            #expect(!mdoc.isOpen)
            // The reader never gets State start and keeps advertising until its owner gives up.
            #expect(air.advertisedServices == [uuid])
            readerTask.cancel()
            #expect(await readerTask.value == .closed)
            #expect(air.advertisedServices.isEmpty)
        }
    }

    @Test func centralClientModeNeedsASixteenByteIdent() async throws {
        let air = SimulatedAir()
        let (mdoc, reader) = air.makeTransportPair()
        let missing = BLEEndpoint(serviceUUID: UUID(), mode: .mdocCentralClient)
        let short = BLEEndpoint(serviceUUID: UUID(), mode: .mdocCentralClient, ident: Data(count: 15))
        #expect(await transportError { _ = try await mdoc.startAdvertising(missing) }
            == .invalidEndpoint("central client mode needs the 16-byte Ident value (§8.3.3.1.1.4)"))
        #expect(await transportError { _ = try await reader.connect(short) }
            == .invalidEndpoint("Ident must be 16 bytes, got 15"))
        // Peripheral server mode has no Ident characteristic (Table 11): none needed.
        let handle = try await mdoc.startAdvertising(BLEEndpoint(serviceUUID: UUID(), mode: .mdocPeripheralServer))
        #expect(handle.isOpen)
        handle.close()
    }

    @Test func secondAdvertisementOfTheSameServiceIsRefused() async throws {
        let air = SimulatedAir()
        let (mdoc, other) = air.makeTransportPair()
        let ep = endpoint(.mdocPeripheralServer)
        let first = try await mdoc.startAdvertising(ep)
        #expect(await transportError { _ = try await other.startAdvertising(ep) } == .alreadyAdvertising(ep.serviceUUID))
        #expect(await mdoc.advertisedServices == [ep.serviceUUID])
        #expect(await other.advertisedServices.isEmpty)
        first.close()
        let again = try await other.startAdvertising(ep)
        #expect(await other.advertisedServices == [ep.serviceUUID])
        again.close()
    }

    @Test func radioOffAndPermissionDenied() async throws {
        let air = SimulatedAir()
        let off = BLETransport(radio: air.makeRadio(availability: .poweredOff))
        let denied = BLETransport(radio: air.makeRadio(availability: .unauthorized))
        #expect(!off.isAvailable)
        let ep = endpoint(.mdocPeripheralServer)
        #expect(await transportError { _ = try await off.startAdvertising(ep) } == .radioUnavailable)
        #expect(await transportError { _ = try await off.connect(ep) } == .radioUnavailable)
        #expect(await transportError { _ = try await denied.startAdvertising(ep) } == .permissionDenied)
        // Central client mode: the mdoc scans in the background; the failure arrives through waitForConnection.
        let scanning = try await denied.startAdvertising(endpoint(.mdocCentralClient))
        #expect(await transportError { try await scanning.waitForConnection() } == .permissionDenied)
    }
}
