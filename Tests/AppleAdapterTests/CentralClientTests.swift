#if !canImport(CoreBluetooth)
import CoreBluetoothDouble
import Foundation
import Testing

@testable import ProximityTransport

/// `CoreBluetoothCentralClient` (the `GATTClientLink` on `CBCentralManager` / `CBPeripheral`) driven the way iOS
/// drives a central: state report, `didDiscover` for the scanned service, `didConnect`, service and characteristic
/// discovery, reads (`didUpdateValueFor`), subscriptions (`didUpdateNotificationStateFor`), Write Commands paced by
/// `canSendWriteWithoutResponse` and `peripheralIsReady(toSendWriteWithoutResponse:)`, notifications, and the
/// ways a link ends.
@Suite struct CentralClientTests {
    let service = UUID()

    struct Setup {
        let host: BluetoothHost
        let peripheral: TestPeripheral
        let client: CoreBluetoothCentralClient
        let events: EventLog<GATTClientEvent>
    }

    /// A host running the client and a peripheral advertising `characteristics`' service on the same air.
    func makeClient(
        _ host: BluetoothHost = BluetoothHost(), characteristics: BLEServiceCharacteristics = mdoc, peripheralMTU: Int = 185,
        advertise: Bool = true
    ) -> Setup {
        let definition = characteristics.serviceDefinition(serviceUUID: service, identValue: ident)
        let peripheral = TestPeripheral(
            air: host.air,
            services: [TestService(uuid: service, characteristics: definition.characteristics.map { item in
                var properties: CBCharacteristicProperties = []
                if item.properties.contains(.read) { properties.insert(.read) }
                if item.properties.contains(.writeWithoutResponse) { properties.insert(.writeWithoutResponse) }
                if item.properties.contains(.notify) { properties.insert(.notify) }
                return TestCharacteristic(uuid: item.uuid, properties: properties, value: item.value)
            })],
            name: "mdoc", attMTU: peripheralMTU)
        if advertise { peripheral.startAdvertising() }
        let events = EventLog<GATTClientEvent>()
        let client = host.run { CoreBluetoothCentralClient(serviceUUID: service, events: events.handler) }
        return Setup(host: host, peripheral: peripheral, client: client, events: events)
    }

    func started(_ setup: Setup) async throws -> Setup {
        try await within { try await setup.client.start(scanTimeout: .seconds(30)) }
        return setup
    }

    // MARK: Power, scan, connect, discover

    @Test func itScansConnectsAndDiscoversInTheDocumentedOrder() async throws {
        let setup = try await started(makeClient())
        #expect(setup.host.recordedCalls == [
            .centralManagerCreated,
            .scanForPeripherals(services: [service.cb]),
            .stopScan,
            .connect(peripheral: setup.peripheral.identifier),
            .discoverServices([service.cb]),
            .discoverCharacteristics(nil, service: service.cb),
        ])
        #expect(setup.client.characteristics == [mdoc.state, mdoc.client2Server, mdoc.server2Client])
        #expect(setup.peripheral.isConnected)
        #expect(setup.host.misuses == [])
    }

    /// ATT_MTU = `maximumWriteValueLength(for: .withoutResponse)` + 3, the link's MTU.
    @Test(arguments: [(185, 185, 185), (517, 247, 247), (23, 517, 23)])
    func theMTUComesFromTheWriteLength(host mtu: Int, peripheral: Int, expected: Int) async throws {
        let host = BluetoothHost()
        host.attMTU = mtu
        let setup = try await started(makeClient(host, peripheralMTU: peripheral))
        #expect(setup.client.attMTU == expected)
    }

    @Test func aPeripheralThatStartsAdvertisingLaterIsFound() async throws {
        let setup = makeClient(advertise: false)
        // A scan time far beyond the test's: under a loaded test run the scan must not end before the peripheral
        // advertises (the equality check below would catch a `stopScan`).
        let start = Task { try await setup.client.start(scanTimeout: .seconds(120)) }
        try await eventually("the scan", within: 60) { setup.host.recordedCalls.count >= 2 }
        await setup.host.air.settle()
        #expect(setup.host.recordedCalls == [.centralManagerCreated, .scanForPeripherals(services: [service.cb])])
        setup.peripheral.startAdvertising()
        try await within(60) { try await start.value }
        #expect(setup.peripheral.isConnected)
    }

    @Test func aLateStateReportStillStartsTheClient() async throws {
        let host = BluetoothHost()
        host.reportsStateOnCreation = false
        let setup = makeClient(host)
        let start = Task { try await setup.client.start(scanTimeout: .seconds(30)) }
        await host.air.settle()
        #expect(host.recordedCalls == [.centralManagerCreated])
        host.state = .poweredOn
        try await within { try await start.value }
        #expect(host.misuses == [])
    }

    @Test(arguments: [
        (CBManagerState.unauthorized, TransportError.permissionDenied),
        (.poweredOff, .radioUnavailable),
        (.unsupported, .radioUnavailable),
    ])
    func aRadioThatIsNotOnFailsTheStart(state: CBManagerState, expected: TransportError) async throws {
        let setup = makeClient(BluetoothHost(state: state))
        #expect(await transportError { try await within { try await setup.client.start(scanTimeout: .seconds(5)) } } == expected)
        #expect(setup.host.recordedCalls == [.centralManagerCreated])
        #expect(setup.host.misuses == [])
    }

    @Test func nothingAdvertisedIsServiceNotFound() async throws {
        let setup = makeClient(advertise: false)
        let error = await transportError { try await within { try await setup.client.start(scanTimeout: .milliseconds(100)) } }
        #expect(error == .serviceNotFound(service))
        try await eventually("the scan stopped") { setup.host.recordedCalls.contains(.stopScan) }
        #expect(setup.host.recordedCalls == [.centralManagerCreated, .scanForPeripherals(services: [service.cb]), .stopScan])
        #expect(setup.host.misuses == [])
    }

    /// CoreBluetooth's connection attempts never time out: when the scan time passes while `connect` is pending,
    /// the attempt has to be cancelled with `cancelPeripheralConnection(_:)`.
    @Test func aConnectionStillPendingWhenTheTimeRunsOutIsCancelled() async throws {
        let host = BluetoothHost()
        host.holdsConnections = true
        let setup = makeClient(host)
        let error = await transportError { try await within { try await setup.client.start(scanTimeout: .milliseconds(200)) } }
        #expect(error == .serviceNotFound(service))
        try await eventually("the cancellation") {
            host.recordedCalls.contains(.cancelPeripheralConnection(peripheral: setup.peripheral.identifier))
        }
        #expect(host.recordedCalls.contains(.connect(peripheral: setup.peripheral.identifier)))
        // The cancelled attempt does not connect later.
        host.completePendingConnections()
        await host.air.settle()
        #expect(!setup.peripheral.isConnected)
    }

    @Test func aRefusedConnectionFailsTheStart() async throws {
        let setup = makeClient()
        setup.peripheral.refusesConnections = true
        #expect(await transportError { try await setup.client.start(scanTimeout: .seconds(5)) } == .disconnected)
    }

    @Test func aPeripheralWithoutTheServiceIsServiceNotFound() async throws {
        let host = BluetoothHost()
        let setup = makeClient(host)
        // Another device advertises the UUID but serves something else.
        let impostor = TestPeripheral(air: host.air, services: [TestService(uuid: UUID(), characteristics: [])])
        _ = impostor
        setup.peripheral.removeServices()
        #expect(await transportError { try await setup.client.start(scanTimeout: .seconds(5)) } == .serviceNotFound(service))
    }

    // MARK: Reads, subscriptions, writes

    /// Table 12's Ident, read as the mdoc in central client mode does (§8.3.3.1.1.4).
    @Test func theIdentIsRead() async throws {
        let setup = try await started(makeClient(characteristics: reader))
        let value = try await within { try await setup.client.read(reader.ident ?? UUID()) }
        #expect(value == ident)
        #expect(setup.host.recordedCalls.last == .readValue(characteristic: reader.ident?.cb ?? ""))
    }

    @Test func readingAnUndiscoveredCharacteristicFails() async throws {
        let setup = try await started(makeClient())
        let missing = UUID()
        #expect(await transportError { _ = try await setup.client.read(missing) } == .characteristicNotFound(missing))
    }

    @Test func subscribingWritesTheCCCDAndWaitsForTheAnswer() async throws {
        let setup = try await started(makeClient())
        try await within { try await setup.client.subscribe(mdoc.state) }
        try await within { try await setup.client.subscribe(mdoc.server2Client) }
        #expect(setup.peripheral.subscriptions == [mdoc.state, mdoc.server2Client])
        #expect(setup.host.calls(after: 6) == [
            .setNotifyValue(true, characteristic: mdoc.state.cb), .setNotifyValue(true, characteristic: mdoc.server2Client.cb),
        ])
    }

    @Test func aRefusedSubscriptionIsAProtocolViolation() async throws {
        let setup = try await started(makeClient())
        setup.peripheral.subscriptionError = .insufficientAuthentication
        let error = await transportError { try await within { try await setup.client.subscribe(mdoc.state) } }
        #expect(error == .protocolViolation("notifications refused on \(mdoc.state.uuidString)"))
    }

    @Test func writeCommandsGoOutInOrder() async throws {
        let setup = try await started(makeClient())
        let values = [Data([0x01])] + (0..<4).map { bytes(182, seed: UInt8($0 + 1)) }
        try await setup.client.writeWithoutResponse(values[0], characteristic: mdoc.state)
        for value in values.dropFirst() { try await setup.client.writeWithoutResponse(value, characteristic: mdoc.client2Server) }
        await setup.host.air.settle()
        #expect(setup.peripheral.writes.map(\.value) == values)
        #expect(setup.peripheral.writes.allSatisfy { $0.type == .withoutResponse })
        #expect(setup.host.recordedCalls.writeCommands == values)
        #expect(setup.host.misuses == [])
    }

    /// `canSendWriteWithoutResponse` false: the adapter waits for `peripheralIsReady(toSendWriteWithoutResponse:)`
    /// instead of writing (a Write Command then would be dropped).
    @Test func aFullWriteQueueHoldsTheWriterUntilReady() async throws {
        let setup = try await started(makeClient())
        setup.host.writeWithoutResponseQueueCapacity = 2
        setup.host.holdsTransmissions = true
        let values = (0..<6).map { bytes(100, seed: UInt8($0 + 1)) }
        let writer = Task {
            for value in values { try await setup.client.writeWithoutResponse(value, characteristic: mdoc.client2Server) }
        }
        try await eventually("two queued writes") { setup.host.recordedCalls.writeCommands.count == 2 }
        await setup.host.air.settle()
        #expect(setup.host.recordedCalls.writeCommands.count == 2)
        #expect(setup.peripheral.writes.isEmpty)
        // Flushing one is not enough: CoreBluetooth calls peripheralIsReady once every write is flushed.
        setup.host.releaseTransmissions(1)
        await setup.host.air.settle()
        #expect(setup.host.recordedCalls.writeCommands.count == 2)
        setup.host.releaseTransmissions(1)
        try await eventually("the next two writes") { setup.host.recordedCalls.writeCommands.count == 4 }
        setup.host.holdsTransmissions = false
        try await within { try await writer.value }
        await setup.host.air.settle()
        #expect(setup.peripheral.writes.map(\.value) == values)
        #expect(setup.host.recordedCalls.writeCommands == values)
        #expect(setup.host.misuses == [])
    }

    @Test func notificationsBecomeEventsOnlyOnceSubscribed() async throws {
        let setup = try await started(makeClient())
        setup.peripheral.notify(Data([9]), characteristic: mdoc.server2Client)
        await setup.host.air.settle()
        #expect(setup.events.all == [])
        try await setup.client.subscribe(mdoc.server2Client)
        setup.peripheral.notify(Data([1, 2]), characteristic: mdoc.server2Client)
        setup.peripheral.notify(Data([3]), characteristic: mdoc.server2Client)
        await setup.host.air.settle()
        #expect(setup.events.all == [.notified(mdoc.server2Client, Data([1, 2])), .notified(mdoc.server2Client, Data([3]))])
    }

    // MARK: The link ending

    @Test func thePeripheralDisconnectingIsDisconnected() async throws {
        let setup = try await started(makeClient())
        setup.peripheral.disconnect()
        await setup.host.air.settle()
        #expect(setup.events.all == [.disconnected])
        #expect(await transportError { try await setup.client.writeWithoutResponse(Data([1]), characteristic: mdoc.state) } == .disconnected)
    }

    @Test func aWriterWaitingForRoomLearnsTheLinkDropped() async throws {
        let setup = try await started(makeClient())
        setup.host.writeWithoutResponseQueueCapacity = 1
        setup.host.holdsTransmissions = true
        try await setup.client.writeWithoutResponse(Data([1]), characteristic: mdoc.client2Server)
        let waiting = Task { await transportError { try await setup.client.writeWithoutResponse(Data([2]), characteristic: mdoc.client2Server) } }
        await setup.host.air.settle()
        setup.peripheral.disconnect()
        #expect(try await within { await waiting.value } == .disconnected)
    }

    /// An iOS peripheral that closes removes its service rather than dropping the link (it cannot): the central
    /// hears `peripheral(_:didModifyServices:)` and must treat the session's service as gone.
    @Test func theServiceBeingRemovedIsDisconnected() async throws {
        let setup = try await started(makeClient())
        setup.peripheral.removeServices()
        await setup.host.air.settle()
        #expect(setup.events.all == [.disconnected])
    }

    @Test func theRadioGoingOffIsDisconnected() async throws {
        let setup = try await started(makeClient())
        setup.host.state = .poweredOff
        await setup.host.air.settle()
        #expect(setup.events.all == [.disconnected])
    }

    @Test func disconnectingCancelsTheConnection() async throws {
        let setup = try await started(makeClient())
        setup.client.disconnect()
        try await eventually("the cancellation") { setup.host.recordedCalls.count == 8 }
        await setup.host.air.settle()
        #expect(setup.host.calls(after: 6) == [.stopScan, .cancelPeripheralConnection(peripheral: setup.peripheral.identifier)])
        #expect(!setup.peripheral.isConnected)
        #expect(setup.events.all == [])
        setup.client.disconnect()
        await quiesce(setup.host)
        #expect(setup.host.recordedCalls.count == 8)
        #expect(setup.host.misuses == [])
    }

    @Test func disconnectingWithTheRadioOffIssuesNoCommand() async throws {
        let setup = try await started(makeClient())
        setup.host.state = .poweredOff
        await setup.host.air.settle()
        setup.client.disconnect()
        await quiesce(setup.host)
        #expect(setup.host.recordedCalls.count == 6)
        #expect(setup.host.misuses == [])
    }
}
#endif
