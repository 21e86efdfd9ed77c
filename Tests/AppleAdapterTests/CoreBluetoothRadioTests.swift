#if !canImport(CoreBluetooth)
import CoreBluetoothDouble
import Foundation
import Testing

@testable import ProximityTransport

/// The ISO 18013-5 BLE protocol (`BLETransport`: State start/end, chunking, reassembly, Ident) over two
/// `CoreBluetoothRadio`s on two simulated iPhones that share an air: the peripheral adapter's
/// `CBPeripheralManager` serves the central adapter's `CBCentralManager`, every PDU passing through the double's
/// transmit queues and delegate calls.
@Suite struct CoreBluetoothRadioTests {
    struct Phones {
        let air = BluetoothAir()
        let mdocHost: BluetoothHost
        let readerHost: BluetoothHost
        let mdocTransport: BLETransport
        let readerTransport: BLETransport

        init(attMTU: Int = 185, queueCapacity: Int = 8, configuration: BLETransportConfiguration = BLETransportConfiguration()) {
            mdocHost = BluetoothHost(air: air, name: "holder")
            readerHost = BluetoothHost(air: air, name: "verifier")
            for host in [mdocHost, readerHost] {
                host.attMTU = attMTU
                host.notificationQueueCapacity = queueCapacity
                host.writeWithoutResponseQueueCapacity = queueCapacity
            }
            mdocTransport = BLETransport(radio: CoreBluetoothRadio(scanTimeout: .seconds(5)), configuration: configuration)
            readerTransport = BLETransport(radio: CoreBluetoothRadio(scanTimeout: .seconds(5)), configuration: configuration)
        }

        /// The mdoc advertises (or, in central client mode, scans) on its phone; the reader connects from its own.
        func connect(_ endpoint: BLEEndpoint, readerEndpoint: BLEEndpoint? = nil) async throws -> (mdoc: ConnectionHandle, reader: ConnectionHandle) {
            let mdoc = try await mdocHost.run { try await mdocTransport.startAdvertising(endpoint) }
            let reader = try await readerHost.run { try await readerTransport.connect(readerEndpoint ?? endpoint) }
            try await mdoc.waitForConnection()
            return (mdoc, reader)
        }
    }

    /// A SessionEstablishment-sized request, a DeviceResponse-sized answer, then State End from the mdoc.
    @Test(arguments: [
        (BLEMode.mdocPeripheralServer, 185, 8), (.mdocPeripheralServer, 23, 1), (.mdocPeripheralServer, 517, 2),
        (.mdocCentralClient, 185, 8), (.mdocCentralClient, 23, 1), (.mdocCentralClient, 517, 2),
    ])
    func anEngagementRunsOverTheAdapters(mode: BLEMode, attMTU: Int, queueCapacity: Int) async throws {
        let phones = Phones(attMTU: attMTU, queueCapacity: queueCapacity)
        let endpoint = BLEEndpoint(serviceUUID: UUID(), mode: mode, ident: ident)
        let (mdocHandle, readerHandle) = try await within(20) { try await phones.connect(endpoint) }
        let request = bytes(3_000, seed: 3)
        let response = bytes(20_000, seed: 4)
        try await within(30) {
            try await readerHandle.send(request)
            #expect(try await mdocHandle.receive() == request)
            try await mdocHandle.send(response)
            #expect(try await readerHandle.receive() == response)
        }
        #expect(mdocHandle.statistics.attMTU == attMTU)
        #expect(readerHandle.statistics.attMTU == attMTU)
        await mdocHandle.sendEnd()
        #expect(await transportError { _ = try await within { try await readerHandle.receive() } } == .sessionEnded)
        readerHandle.close()
        try await eventually("nothing advertised") {
            phones.mdocHost.recordedCalls.contains(.stopAdvertising) || phones.readerHost.recordedCalls.contains(.stopAdvertising)
        }
        #expect(await phones.mdocTransport.advertisedServices.isEmpty)
        #expect(await phones.readerTransport.advertisedServices.isEmpty)
        #expect(phones.mdocHost.misuses == [])
        #expect(phones.readerHost.misuses == [])
    }

    /// A small transmit queue with PDUs held: the sender meets `updateValue` false / `canSendWriteWithoutResponse`
    /// false on every other chunk and still delivers the message whole.
    @Test(arguments: [BLEMode.mdocPeripheralServer, .mdocCentralClient])
    func backPressureDoesNotLoseOrReorderChunks(mode: BLEMode) async throws {
        let phones = Phones(attMTU: 23, queueCapacity: 1)
        let endpoint = BLEEndpoint(serviceUUID: UUID(), mode: mode, ident: ident)
        let (mdocHandle, readerHandle) = try await within(20) { try await phones.connect(endpoint) }
        phones.mdocHost.holdsTransmissions = true
        phones.readerHost.holdsTransmissions = true
        let pump = Task {
            while !Task.isCancelled {
                phones.mdocHost.releaseTransmissions(1)
                phones.readerHost.releaseTransmissions(1)
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
        defer { pump.cancel() }
        let request = bytes(600, seed: 5)
        let response = bytes(900, seed: 6)
        try await within(30) {
            try await readerHandle.send(request)
            #expect(try await mdocHandle.receive() == request)
            try await mdocHandle.send(response)
            #expect(try await readerHandle.receive() == response)
        }
        let server = mode == .mdocPeripheralServer ? phones.mdocHost : phones.readerHost
        let client = mode == .mdocPeripheralServer ? phones.readerHost : phones.mdocHost
        #expect(server.recordedCalls.updateResults.contains(false))
        #expect(client.misuses == [])
        #expect(server.misuses == [])
        mdocHandle.close()
        readerHandle.close()
    }

    /// Central client mode: the mdoc reads the reader service's Ident and refuses a reader whose Ident differs.
    @Test func aWrongIdentIsRefused() async throws {
        let phones = Phones()
        let service = UUID()
        let mdocEndpoint = BLEEndpoint(serviceUUID: service, mode: .mdocCentralClient, ident: ident)
        let mdocHandle = try await phones.mdocHost.run { try await phones.mdocTransport.startAdvertising(mdocEndpoint) }
        let readerEndpoint = BLEEndpoint(serviceUUID: service, mode: .mdocCentralClient, ident: Data(repeating: 7, count: 16))
        let readerConnect = Task {
            try await phones.readerHost.run {
                try await phones.readerTransport.connect(readerEndpoint)
            }
        }
        #expect(await transportError { try await within(20) { try await mdocHandle.waitForConnection() } } == .identMismatch)
        readerConnect.cancel()
        _ = await readerConnect.result
    }

    /// The reader phone's radio going off mid-session: its own side learns it from the state update, the mdoc's
    /// from the link going (unsubscriptions or the disconnection).
    @Test(arguments: [BLEMode.mdocPeripheralServer, .mdocCentralClient])
    func theRadioGoingOffEndsTheSessionOnBothSides(mode: BLEMode) async throws {
        let phones = Phones()
        let endpoint = BLEEndpoint(serviceUUID: UUID(), mode: mode, ident: ident)
        let (mdocHandle, readerHandle) = try await within(20) { try await phones.connect(endpoint) }
        phones.readerHost.state = .poweredOff
        #expect(await transportError { _ = try await within { try await readerHandle.receive() } } == .disconnected)
        #expect(await transportError { _ = try await within { try await mdocHandle.receive() } } == .disconnected)
    }

    /// Closing the peripheral side without State End: the central learns it from the service being removed.
    @Test(arguments: [BLEMode.mdocPeripheralServer, .mdocCentralClient])
    func closingTheServerEndsTheClient(mode: BLEMode) async throws {
        let phones = Phones()
        let endpoint = BLEEndpoint(serviceUUID: UUID(), mode: mode, ident: ident)
        let (mdocHandle, readerHandle) = try await within(20) { try await phones.connect(endpoint) }
        let (server, client) = mode == .mdocPeripheralServer ? (mdocHandle, readerHandle) : (readerHandle, mdocHandle)
        server.close()
        #expect(await transportError { _ = try await within { try await client.receive() } } == .disconnected)
    }

    @Test func theRadioIsUnavailableWhenBluetoothIsDenied() {
        let radio = CoreBluetoothRadio()
        #expect(BluetoothHost(authorization: .denied).run { radio.isAvailable } == false)
        #expect(BluetoothHost(authorization: .restricted).run { radio.isAvailable } == false)
        #expect(BluetoothHost(authorization: .notDetermined).run { radio.isAvailable } == true)
        #expect(BluetoothHost(authorization: .allowedAlways).run { radio.isAvailable } == true)
    }

    /// Without a host (a machine without Bluetooth LE) the radio reports `.unsupported`: starting fails cleanly.
    @Test func withoutBluetoothTheTransportFailsCleanly() async throws {
        let transport = BLETransport(radio: CoreBluetoothRadio(scanTimeout: .milliseconds(100)))
        let endpoint = BLEEndpoint(serviceUUID: UUID(), mode: .mdocPeripheralServer)
        #expect(await transportError { _ = try await transport.startAdvertising(endpoint) } == .radioUnavailable)
        #expect(await transportError { _ = try await transport.connect(endpoint) } == .radioUnavailable)
    }

    @Test func oneServiceIsAdvertisedOnce() async throws {
        let host = BluetoothHost()
        let radio = CoreBluetoothRadio()
        let definition = mdoc.serviceDefinition(serviceUUID: UUID(), identValue: nil)
        let first = try await host.run { try await radio.advertise(definition) { _ in } }
        #expect(await radio.advertisedServices == [definition.uuid])
        #expect(await transportError { _ = try await host.run { try await radio.advertise(definition) { _ in } } } == .alreadyAdvertising(definition.uuid))
        first.close()
        #expect(await radio.advertisedServices == [])
    }
}
#endif
