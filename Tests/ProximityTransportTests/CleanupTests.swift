import Foundation
import ProximityTransport
import Testing
import ProximityTransportTesting

/// Releasing a handle stops advertising and disconnects (RAII, ARCHITECTURE.md decision 3).
@Suite struct CleanupTests {
    static let modes: [BLEMode] = [.mdocPeripheralServer, .mdocCentralClient]

    @Test(arguments: modes)
    func releasedHandlesLeaveNothingBehind(mode: BLEMode) async throws {
        let air = SimulatedAir()
        let (mdocTransport, readerTransport) = air.makeTransportPair()
        let (weakMdoc, weakReader) = try await within {
            let ep = endpoint(mode)
            let mdoc = try await mdocTransport.startAdvertising(ep)
            let advertiser = mode == .mdocPeripheralServer ? mdocTransport : readerTransport
            let reader = try await readerTransport.connect(ep)
            try await mdoc.waitForConnection()
            try await reader.send(message(300))
            #expect(try await mdoc.receive() == message(300))
            #expect(air.connectedLinkCount == 1)
            // Once transmission started nobody advertises (§8.3.3.1.1.8: no second central).
            #expect(await advertiser.advertisedServices.isEmpty)
            #expect(mdoc.transport === mdocTransport && reader.transport === readerTransport)
            return (Weak(mdoc), Weak(reader))
        }
        #expect(weakMdoc.value == nil)
        #expect(weakReader.value == nil)
        #expect(air.connectedLinkCount == 0)
        #expect(await mdocTransport.advertisedServices.isEmpty)
        #expect(await readerTransport.advertisedServices.isEmpty)
        #expect(air.advertisedServices.isEmpty)
    }

    @Test func releasingAnAdvertisingMdocStopsAdvertising() async throws {
        let air = SimulatedAir()
        let transport = BLETransport(radio: air.makeRadio())
        let ep = endpoint(.mdocPeripheralServer)
        let weakHandle = try await within {
            let handle = try await transport.startAdvertising(ep)
            #expect(await transport.advertisedServices == [ep.serviceUUID])
            return Weak(handle)
        }
        #expect(weakHandle.value == nil)
        #expect(await transport.advertisedServices.isEmpty)
        // The UUID is free again.
        let again = try await transport.startAdvertising(ep)
        #expect(await transport.advertisedServices == [ep.serviceUUID])
        again.close()
        #expect(await transport.advertisedServices.isEmpty)
    }

    @Test func releasingAScanningMdocStopsTheScan() async throws {
        let air = SimulatedAir()
        let mdocTransport = BLETransport(radio: air.makeRadio())
        let ep = endpoint(.mdocCentralClient)
        let weakHandle = try await within {
            Weak(try await mdocTransport.startAdvertising(ep))
        }
        #expect(weakHandle.value == nil)
        // A reader appearing now finds no mdoc: the background scan is gone.
        let reader = BLETransport(
            radio: air.makeRadio(), configuration: BLETransportConfiguration(connectionTimeout: .milliseconds(100)))
        #expect(await transportError { _ = try await reader.connect(ep) } == .timedOut)
        #expect(air.connectedLinkCount == 0)
        #expect(air.advertisedServices.isEmpty)
    }

    @Test func transportIsHeldWeakly() async throws {
        let air = SimulatedAir()
        weak var weakTransport: BLETransport?
        let handle: ConnectionHandle = try await {
            let transport = BLETransport(radio: air.makeRadio())
            weakTransport = transport
            return try await transport.startAdvertising(endpoint(.mdocPeripheralServer))
        }()
        #expect(weakTransport == nil)
        #expect(handle.transport == nil)
        // The handle still works on its own: it advertises until closed.
        #expect(air.advertisedServices.count == 1)
        handle.close()
        #expect(air.advertisedServices.isEmpty)
    }

    @Test(arguments: modes)
    func endedSessionsReleaseTheLink(mode: BLEMode) async throws {
        try await within {
            let pair = try await ConnectedPair.make(mode)
            await pair.reader.sendEnd()
            #expect(await transportError { _ = try await pair.mdoc.receive() } == .sessionEnded)
            #expect(pair.air.connectedLinkCount == 0)
            #expect(pair.air.advertisedServices.isEmpty)
        }
    }
}
