#if !canImport(CoreBluetooth)
import CoreBluetoothDouble
import Foundation
import Testing

@testable import ProximityTransport

/// `CoreBluetoothPeripheralServer` (the `GATTServerLink` on `CBPeripheralManager`) driven the way iOS drives a
/// peripheral manager: state report, `didAdd`, `didStartAdvertising`, a central's subscriptions (`didSubscribeTo`,
/// its `maximumUpdateValueLength`), Write Commands (`didReceiveWrite`), the transmit queue's back-pressure
/// (`updateValue` false, then `peripheralManagerIsReady(toUpdateSubscribers:)`) and the central leaving
/// (`didUnsubscribeFrom` for each subscription).
@Suite struct PeripheralServerTests {
    let service = UUID()

    struct Setup {
        let host: BluetoothHost
        let server: CoreBluetoothPeripheralServer
        let events: EventLog<GATTServerEvent>
    }

    func makeServer(
        _ host: BluetoothHost = BluetoothHost(), characteristics: BLEServiceCharacteristics = mdoc, identValue: Data? = nil
    ) -> Setup {
        let events = EventLog<GATTServerEvent>()
        let definition = characteristics.serviceDefinition(serviceUUID: service, identValue: identValue)
        let server = host.run { CoreBluetoothPeripheralServer(definition: definition, events: events.handler) }
        return Setup(host: host, server: server, events: events)
    }

    /// A started server with a central subscribed to State and Server2Client, as an mdoc reader leaves it.
    func connected(attMTU: Int = 185) async throws -> (Setup, TestCentral) {
        let host = BluetoothHost()
        host.attMTU = attMTU
        let setup = makeServer(host)
        try await setup.server.start()
        let central = TestCentral(air: setup.host.air, attMTU: attMTU)
        #expect(central.connect(to: setup.host))
        #expect(central.subscribe(service: service, characteristic: mdoc.state) == nil)
        #expect(central.subscribe(service: service, characteristic: mdoc.server2Client) == nil)
        await setup.host.air.settle()
        return (setup, central)
    }

    // MARK: Power, publishing, advertising

    @Test func poweredOnPublishesTheServiceThenAdvertisesIt() async throws {
        let setup = makeServer()
        try await within { try await setup.server.start() }
        #expect(setup.server.isAdvertising)
        #expect(setup.host.recordedCalls == [
            .peripheralManagerCreated,
            .add(service: service.cb, primary: true, characteristics: [
                .init(uuid: mdoc.state.cb, properties: [.notify, .writeWithoutResponse], permissions: [.writeable]),
                .init(uuid: mdoc.client2Server.cb, properties: [.writeWithoutResponse], permissions: [.writeable]),
                .init(uuid: mdoc.server2Client.cb, properties: [.notify], permissions: []),
            ]),
            .startAdvertising(serviceUUIDs: [service.cb], localName: nil),
        ])
        #expect(setup.host.misuses == [])
        #expect(setup.events.all == [])
    }

    /// Table 12: the Ident is a cached, read-only value; CoreBluetooth answers its reads itself.
    @Test func theReaderServiceServesTheIdentAsACachedValue() async throws {
        let setup = makeServer(characteristics: reader, identValue: ident)
        try await setup.server.start()
        guard case .add(_, _, let characteristics) = setup.host.recordedCalls[1] else {
            Issue.record("no add(_:) call")
            return
        }
        #expect(characteristics.last == .init(uuid: reader.ident?.cb ?? "", properties: [.read], permissions: [.readable], value: ident))
        let central = TestCentral(air: setup.host.air)
        central.connect(to: setup.host)
        let read = await central.read(service: service, characteristic: reader.ident ?? UUID())
        #expect(read == .success(ident))
        #expect(setup.host.misuses == [])
    }

    /// iOS may report the state after the app's first look: the adapter waits for `peripheralManagerDidUpdateState`.
    @Test func aLateStateReportStillStartsTheServer() async throws {
        let host = BluetoothHost()
        host.reportsStateOnCreation = false
        let setup = makeServer(host)
        let start = Task { try await setup.server.start() }
        await host.air.settle()
        #expect(host.recordedCalls == [.peripheralManagerCreated])
        host.state = .poweredOn
        try await within { try await start.value }
        #expect(host.recordedCalls.count == 3)
        #expect(host.misuses == [])
    }

    @Test(arguments: [
        (CBManagerState.unauthorized, TransportError.permissionDenied),
        (.poweredOff, .radioUnavailable),
        (.unsupported, .radioUnavailable),
    ])
    func aRadioThatIsNotOnFailsTheStart(state: CBManagerState, expected: TransportError) async throws {
        let setup = makeServer(BluetoothHost(state: state))
        let error = await transportError { try await within { try await setup.server.start() } }
        #expect(error == expected)
        #expect(setup.host.recordedCalls == [.peripheralManagerCreated])
        #expect(setup.host.misuses == [])
        #expect(!setup.server.isAdvertising)
    }

    @Test func theRadioGoingOffWhileStartingFailsTheStart() async throws {
        let host = BluetoothHost()
        host.reportsStateOnCreation = false
        let setup = makeServer(host)
        let start = Task { try await setup.server.start() }
        await host.air.settle()
        host.state = .unauthorized
        let error = await transportError { try await within { try await start.value } }
        #expect(error == .permissionDenied)
    }

    @Test func failingToAddTheServiceFailsTheStart() async throws {
        let host = BluetoothHost()
        host.failNextAdd(with: CBError(.invalidParameters))
        let setup = makeServer(host)
        #expect(await transportError { try await within { try await setup.server.start() } } == .radioUnavailable)
        #expect(!host.recordedCalls.contains(.startAdvertising(serviceUUIDs: [service.cb], localName: nil)))
    }

    @Test func failingToAdvertiseFailsTheStart() async throws {
        let host = BluetoothHost()
        host.failNextAdvertising(with: CBError(.alreadyAdvertising))
        let setup = makeServer(host)
        #expect(await transportError { try await within { try await setup.server.start() } } == .radioUnavailable)
        #expect(!setup.server.isAdvertising)
    }

    // MARK: A central

    /// CoreBluetooth reports no connection to a peripheral manager: the first subscription stands for it, with
    /// ATT_MTU = `maximumUpdateValueLength` + 3.
    @Test(arguments: [23, 185, 247, 517])
    func theFirstSubscriptionIsTheConnection(attMTU: Int) async throws {
        let (setup, _) = try await connected(attMTU: attMTU)
        #expect(setup.events.all == [.connected(attMTU: attMTU), .subscribed(mdoc.state), .subscribed(mdoc.server2Client)])
    }

    @Test func theLinkUsesTheSmallerMTUOfItsEnds() async throws {
        let host = BluetoothHost()
        host.attMTU = 104
        let setup = makeServer(host)
        try await setup.server.start()
        let central = TestCentral(air: host.air, attMTU: 517)
        central.connect(to: host)
        central.subscribe(service: service, characteristic: mdoc.state)
        await host.air.settle()
        #expect(setup.events.all == [.connected(attMTU: 104), .subscribed(mdoc.state)])
    }

    @Test func writeCommandsArriveInOrderAndNeedNoResponse() async throws {
        let (setup, central) = try await connected()
        central.write(Data([0x01]), service: service, characteristic: mdoc.state)
        for i in 0..<5 { central.write(bytes(182, seed: UInt8(i + 1)), service: service, characteristic: mdoc.client2Server) }
        await setup.host.air.settle()
        let expected: [GATTServerEvent] =
            [.written(mdoc.state, Data([0x01]))] + (0..<5).map { .written(mdoc.client2Server, bytes(182, seed: UInt8($0 + 1))) }
        #expect(Array(setup.events.all.dropFirst(3)) == expected)
        #expect(!setup.host.recordedCalls.contains { if case .respond = $0 { return true } else { return false } })
        #expect(setup.host.misuses == [])
    }

    /// One central at a time: a second central's subscriptions and writes are not the session's.
    @Test func aSecondCentralIsIgnored() async throws {
        let (setup, _) = try await connected()
        let intruder = TestCentral(air: setup.host.air)
        intruder.connect(to: setup.host)
        intruder.subscribe(service: service, characteristic: mdoc.state)
        intruder.write(Data([0x01]), service: service, characteristic: mdoc.state)
        await setup.host.air.settle()
        #expect(setup.events.all.count == 3)
    }

    /// A dynamic readable value reaches the delegate as `didReceiveRead`; the adapter answers it, exactly once.
    @Test func aReadOfADynamicValueIsAnsweredOnce() async throws {
        let events = EventLog<GATTServerEvent>()
        let readable = UUID()
        let definition = GATTServiceDefinition(uuid: service, characteristics: [
            GATTCharacteristicDefinition(uuid: readable, properties: [.read, .notify])
        ])
        let host = BluetoothHost()
        let server = host.run { CoreBluetoothPeripheralServer(definition: definition, events: events.handler) }
        try await server.start()
        let central = TestCentral(air: host.air)
        central.connect(to: host)
        #expect(await central.read(service: service, characteristic: readable) == .failure(CBATTError(.readNotPermitted)))
        #expect(host.recordedCalls.last == .respond(characteristic: readable.cb, result: .readNotPermitted))
        #expect(host.misuses == [])
    }

    // MARK: Notifications and back-pressure

    @Test func notificationsReachTheCentralInOrder() async throws {
        let (setup, central) = try await connected()
        for i in 0..<4 { try await setup.server.notify(bytes(182, seed: UInt8(i + 1)), characteristic: mdoc.server2Client) }
        try await setup.server.notify(Data([0x02]), characteristic: mdoc.state)
        await setup.host.air.settle()
        #expect(central.notifications.map(\.value) == (0..<4).map { bytes(182, seed: UInt8($0 + 1)) } + [Data([0x02])])
        #expect(setup.host.recordedCalls.updateResults == [true, true, true, true, true])
        #expect(setup.host.misuses == [])
    }

    /// `updateValue` returns false when the transmit queue is full; the adapter waits for
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` and sends the same value again.
    @Test func aFullTransmitQueueHoldsTheSenderUntilReady() async throws {
        let (setup, central) = try await connected()
        setup.host.notificationQueueCapacity = 2
        setup.host.holdsTransmissions = true
        let values = (0..<5).map { bytes(100, seed: UInt8($0 + 1)) }
        let sender = Task {
            for value in values { try await setup.server.notify(value, characteristic: mdoc.server2Client) }
        }
        try await eventually("a refused update") { setup.host.recordedCalls.updateResults == [true, true, false] }
        await setup.host.air.settle()
        // Nothing more is tried before the queue has room.
        #expect(setup.host.recordedCalls.updateResults == [true, true, false])
        #expect(central.notifications.isEmpty)
        // One notification on air makes room for one: the refused value goes in, the next is refused again.
        setup.host.releaseTransmissions(1)
        try await eventually("the retry") { setup.host.recordedCalls.updateResults.count >= 5 }
        await setup.host.air.settle()
        #expect(setup.host.recordedCalls.updateResults == [true, true, false, true, false])
        #expect(central.notifications.map(\.value) == [values[0]])
        setup.host.holdsTransmissions = false
        try await within { try await sender.value }
        await setup.host.air.settle()
        #expect(central.notifications.map(\.value) == values)
        let accepted = setup.host.recordedCalls.compactMap { call -> Data? in
            if case .updateValue(let value, _, _, true) = call { return value }
            return nil
        }
        #expect(accepted == values)
        #expect(setup.host.misuses == [])
    }

    @Test func notifyingACharacteristicTheServiceLacksFails() async throws {
        let (setup, _) = try await connected()
        let error = await transportError { try await within { try await setup.server.notify(Data([1]), characteristic: UUID()) } }
        #expect(error?.isCharacteristicNotFound == true)
    }

    @Test func notifyingWithoutACentralFails() async throws {
        let setup = makeServer()
        try await setup.server.start()
        #expect(await transportError { try await setup.server.notify(Data([1]), characteristic: mdoc.state) } == .disconnected)
    }

    // MARK: The central leaving

    /// iOS tells a peripheral manager that a central went away by unsubscribing it from each characteristic.
    @Test func theCentralLeavingUnsubscribesThenDisconnects() async throws {
        let (setup, central) = try await connected()
        central.disconnect()
        await setup.host.air.settle()
        #expect(Array(setup.events.all.dropFirst(3)) == [.unsubscribed(mdoc.state), .unsubscribed(mdoc.server2Client), .disconnected])
    }

    @Test func aSenderWaitingForRoomLearnsTheCentralLeft() async throws {
        let (setup, central) = try await connected()
        setup.host.notificationQueueCapacity = 1
        setup.host.holdsTransmissions = true
        try await setup.server.notify(Data([1]), characteristic: mdoc.server2Client)
        let waiting = Task { await transportError { try await setup.server.notify(Data([2]), characteristic: mdoc.server2Client) } }
        try await eventually("a refused update") { setup.host.recordedCalls.updateResults == [true, false] }
        central.disconnect()
        #expect(try await within { await waiting.value } == .disconnected)
    }

    @Test func theRadioGoingOffDisconnectsTheCentral() async throws {
        let (setup, _) = try await connected()
        setup.host.state = .poweredOff
        await setup.host.air.settle()
        #expect(setup.events.all.last == .disconnected)
        #expect(await transportError { try await setup.server.notify(Data([1]), characteristic: mdoc.state) } == .disconnected)
    }

    /// `close()` stops advertising and removes the service: CoreBluetooth cannot drop a central, but a central
    /// that discovered the service hears it was invalidated (Service Changed).
    @Test func closingRemovesTheServiceFromUnderTheCentral() async throws {
        let (setup, central) = try await connected()
        let before = setup.host.recordedCalls.count
        setup.server.close()
        try await eventually("the clean-up") { setup.host.calls(after: before).count == 2 }
        await setup.host.air.settle()
        #expect(setup.host.calls(after: before) == [.stopAdvertising, .removeAllServices])
        #expect(central.invalidatedServices == [service])
        #expect(!setup.server.isAdvertising)
        #expect(await transportError { try await setup.server.notify(Data([1]), characteristic: mdoc.state) } == .disconnected)
        // Idempotent, and nothing follows.
        setup.server.close()
        await quiesce(setup.host)
        #expect(setup.host.calls(after: before).count == 2)
        #expect(setup.events.all.count == 3)
        #expect(setup.host.misuses == [])
    }

    @Test func stopAdvertisingKeepsTheCentral() async throws {
        let (setup, central) = try await connected()
        setup.server.stopAdvertising()
        #expect(!setup.server.isAdvertising)
        try await eventually("stopAdvertising()") { setup.host.recordedCalls.last == .stopAdvertising }
        try await setup.server.notify(Data([7]), characteristic: mdoc.server2Client)
        await setup.host.air.settle()
        #expect(central.notifications.map(\.value) == [Data([7])])
    }

    /// Closing after the radio went off issues no command CoreBluetooth would refuse ("API MISUSE").
    @Test func closingWithTheRadioOffIssuesNoCommand() async throws {
        let (setup, _) = try await connected()
        setup.host.state = .poweredOff
        await setup.host.air.settle()
        let before = setup.host.recordedCalls.count
        setup.server.close()
        await quiesce(setup.host)
        #expect(setup.host.calls(after: before) == [])
        #expect(setup.host.misuses == [])
    }
}

extension TransportError {
    var isCharacteristicNotFound: Bool {
        if case .characteristicNotFound = self { return true }
        return false
    }
}
#endif
