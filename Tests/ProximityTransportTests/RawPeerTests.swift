import Foundation
import ProximityTransport
import Testing
import ProximityTransportTesting

/// The protocol engine against a hand-played GATT peer on the simulated air (swift-nio `EmbeddedChannel` style):
/// the test writes the exact bytes a misbehaving or well-behaved peer would put on air.
@Suite struct RawPeerTests {
    let mdocChars = BLEServiceCharacteristics.mdocService
    let readerChars = BLEServiceCharacteristics.mdocReaderService

    /// A raw GATT server publishing Table 11, and the reader engine connected to it as GATT client.
    func readerAgainstRawServer(
        mtu: Int = 23, configuration: BLETransportConfiguration = BLETransportConfiguration()
    ) async throws -> (server: any GATTServerLink, events: EventRecorder<GATTServerEvent>, reader: ConnectionHandle) {
        let air = SimulatedAir(configuration: SimulatedAirConfiguration(attMTU: mtu))
        let uuid = UUID()
        let events = EventRecorder<GATTServerEvent>()
        let server = try await air.makeRadio().advertise(
            mdocChars.serviceDefinition(serviceUUID: uuid, identValue: nil), events: events.handler)
        let reader = try await BLETransport(radio: air.makeRadio(), configuration: configuration)
            .connect(BLEEndpoint(serviceUUID: uuid, mode: .mdocPeripheralServer))
        return (server, events, reader)
    }

    /// The mdoc engine advertising Table 11, and a raw GATT client connected to it.
    func mdocAgainstRawClient(
        mtu: Int = 23
    ) async throws -> (client: any GATTClientLink, events: EventRecorder<GATTClientEvent>, mdoc: ConnectionHandle) {
        let air = SimulatedAir(configuration: SimulatedAirConfiguration(attMTU: mtu))
        let ep = endpoint(.mdocPeripheralServer)
        let mdoc = try await BLETransport(radio: air.makeRadio()).startAdvertising(ep)
        let events = EventRecorder<GATTClientEvent>()
        let client = try await air.makeRadio().connect(
            service: ep.serviceUUID, scanTimeout: .zero, events: events.handler)
        return (client, events, mdoc)
    }

    @Test func readerFollowsTheConnectionSetupOfTable13() async throws {
        try await within {
            let (server, events, reader) = try await readerAgainstRawServer()
            defer { withExtendedLifetime(server) {} }
            var seen: [GATTServerEvent] = []
            for await event in events.stream {
                seen.append(event)
                if seen.count == 4 { break }
            }
            #expect(seen == [
                .connected(attMTU: 23), .subscribed(mdocChars.state), .subscribed(mdocChars.server2Client),
                .written(mdocChars.state, Data([0x01])),
            ])
            #expect(reader.isOpen)
        }
    }

    @Test func readerWritesExactChunksOnClient2Server() async throws {
        try await within {
            let (server, events, reader) = try await readerAgainstRawServer()
            defer { withExtendedLifetime(server) {} }
            try await reader.send(Data(0..<40))
            var chunks: [Data] = []
            for await event in events.stream {
                if case .written(let uuid, let value) = event, uuid == mdocChars.client2Server {
                    chunks.append(value)
                    if chunks.count == 3 { break }
                }
            }
            #expect(chunks == [Data([0x01] + Array(0..<19)), Data([0x01] + Array(19..<38)), Data([0x00, 38, 39])])
        }
    }

    @Test func readerReassemblesNotifications() async throws {
        try await within {
            let (server, _, reader) = try await readerAgainstRawServer()
            try await server.notify(Data([0x01] + Array(repeating: 0xAA, count: 19)), characteristic: mdocChars.server2Client)
            try await server.notify(Data([0x00, 0xBB]), characteristic: mdocChars.server2Client)
            #expect(try await reader.receive() == Data(Array(repeating: 0xAA, count: 19) + [0xBB]))
        }
    }

    /// Each bad value on Server2Client / State ends the reader's connection with the rule it broke, and the
    /// reader drops the link.
    @Test(arguments: [
        (Data([0x05, 1, 2]), false, TransportError.protocolViolation("unknown chunk header 0x05")),
        (Data([0x01, 1, 2, 3]), false, .protocolViolation("non-final chunk shorter than the maximum (4 < 20)")),
        (Data(), false, .protocolViolation("empty chunk")),
        (Data([0x03]), true, .protocolViolation("unknown State value 0x03 from the GATT server")),
        (Data([0x01]), true, .protocolViolation("State start from the GATT server")),
        (Data([0x02, 0x02]), true, .protocolViolation("State value of 2 bytes from the GATT server")),
        (Data([0x02]), true, .sessionEnded),
    ])
    func readerRejects(value: Data, onState: Bool, expected: TransportError) async throws {
        try await within {
            let (server, events, reader) = try await readerAgainstRawServer()
            try await server.notify(value, characteristic: onState ? mdocChars.state : mdocChars.server2Client)
            #expect(await transportError { _ = try await reader.receive() } == expected)
            #expect(!reader.isOpen)
            #expect(await events.next { $0 == .disconnected } == .disconnected)
        }
    }

    @Test func readerEnforcesTheMessageSizeLimit() async throws {
        try await within {
            let (server, _, reader) = try await readerAgainstRawServer(
                configuration: BLETransportConfiguration(maximumMessageSize: 30))
            try await server.notify(Data([0x01] + Array(repeating: 1, count: 19)), characteristic: mdocChars.server2Client)
            try await server.notify(Data([0x00] + Array(repeating: 2, count: 12)), characteristic: mdocChars.server2Client)
            #expect(await transportError { _ = try await reader.receive() } == .messageTooLarge(limit: 30))
        }
    }

    @Test func mdocSendsExactNotifications() async throws {
        try await within {
            let (client, events, mdoc) = try await mdocAgainstRawClient()
            try await client.subscribe(mdocChars.state)
            try await client.subscribe(mdocChars.server2Client)
            try await client.writeWithoutResponse(Data([0x01]), characteristic: mdocChars.state)
            try await mdoc.waitForConnection()
            try await mdoc.send(Data(0..<21))
            var chunks: [Data] = []
            for await event in events.stream {
                if case .notified(let uuid, let value) = event, uuid == mdocChars.server2Client {
                    chunks.append(value)
                    if chunks.count == 2 { break }
                }
            }
            #expect(chunks == [Data([0x01] + Array(0..<19)), Data([0x00, 19, 20])])
            await mdoc.sendEnd()
            #expect(await events.next { $0 == .notified(mdocChars.state, Data([0x02])) } != nil)
            #expect(await events.next { $0 == .disconnected } == .disconnected)
        }
    }

    @Test func mdocRejectsDataBeforeStateStart() async throws {
        try await within {
            let (client, _, mdoc) = try await mdocAgainstRawClient()
            try await client.subscribe(mdocChars.state)
            try await client.subscribe(mdocChars.server2Client)
            try await client.writeWithoutResponse(Data([0x00, 1]), characteristic: mdocChars.client2Server)
            #expect(await transportError { try await mdoc.waitForConnection() }
                == .protocolViolation("data before State start"))
            #expect(!mdoc.isOpen)
        }
    }

    @Test func mdocRejectsStartBeforeSubscribing() async throws {
        try await within {
            let (client, _, mdoc) = try await mdocAgainstRawClient()
            try await client.subscribe(mdocChars.state)
            try await client.writeWithoutResponse(Data([0x01]), characteristic: mdocChars.state)
            #expect(await transportError { try await mdoc.waitForConnection() }
                == .protocolViolation("State start before subscribing to State and Server2Client"))
        }
    }

    @Test func mdocRejectsASecondStart() async throws {
        try await within {
            let (client, events, mdoc) = try await mdocAgainstRawClient()
            try await client.subscribe(mdocChars.state)
            try await client.subscribe(mdocChars.server2Client)
            try await client.writeWithoutResponse(Data([0x01]), characteristic: mdocChars.state)
            try await mdoc.waitForConnection()
            try await client.writeWithoutResponse(Data([0x01]), characteristic: mdocChars.state)
            #expect(await transportError { _ = try await mdoc.receive() }
                == .protocolViolation("State start written twice"))
            #expect(await events.next { $0 == .disconnected } == .disconnected)
        }
    }

    @Test func mdocSeesTheReadersEnd() async throws {
        try await within {
            let (client, _, mdoc) = try await mdocAgainstRawClient()
            try await client.subscribe(mdocChars.state)
            try await client.subscribe(mdocChars.server2Client)
            try await client.writeWithoutResponse(Data([0x01]), characteristic: mdocChars.state)
            try await client.writeWithoutResponse(Data([0x00, 9]), characteristic: mdocChars.client2Server)
            try await client.writeWithoutResponse(Data([0x02]), characteristic: mdocChars.state)
            #expect(try await mdoc.receive() == Data([9]))
            #expect(await transportError { _ = try await mdoc.receive() } == .sessionEnded)
        }
    }

    /// §8.3.3.1.1.8: a link lost before State start is not the end; the mdoc keeps advertising for a new one.
    @Test func mdocWaitsAgainAfterALinkLostBeforeStart() async throws {
        try await within {
            let air = SimulatedAir()
            let ep = endpoint(.mdocPeripheralServer)
            let mdocTransport = BLETransport(radio: air.makeRadio())
            let mdoc = try await mdocTransport.startAdvertising(ep)
            let early = try await air.makeRadio().connect(service: ep.serviceUUID, scanTimeout: .zero) { _ in }
            try await early.subscribe(mdocChars.state)
            early.disconnect()
            #expect(mdoc.isOpen)
            #expect(await mdocTransport.advertisedServices == [ep.serviceUUID])
            let reader = try await BLETransport(radio: air.makeRadio()).connect(ep)
            try await mdoc.waitForConnection()
            // Transmission started: the mdoc no longer advertises.
            #expect(await mdocTransport.advertisedServices.isEmpty)
            try await reader.send(Data([4, 2]))
            #expect(try await mdoc.receive() == Data([4, 2]))
        }
    }

    /// Central client mode: the reader serves Table 12 with the Ident value; the mdoc (here played raw) reads it.
    @Test func readerServesIdentInCentralClientMode() async throws {
        try await within {
            let air = SimulatedAir()
            let ep = endpoint(.mdocCentralClient)
            let readerTask = Task { try await BLETransport(radio: air.makeRadio()).connect(ep) }
            let client = try await air.makeRadio().connect(service: ep.serviceUUID, scanTimeout: .seconds(5)) { _ in }
            #expect(client.characteristics == [
                readerChars.state, readerChars.client2Server, readerChars.server2Client, try #require(readerChars.ident),
            ])
            #expect(try await client.read(try #require(readerChars.ident)) == testIdent)
            #expect(await transportError { _ = try await client.read(readerChars.state) }
                == .protocolViolation("characteristic \(readerChars.state.uuidString) is not readable"))
            try await client.subscribe(readerChars.state)
            try await client.subscribe(readerChars.server2Client)
            try await client.writeWithoutResponse(Data([0x01]), characteristic: readerChars.state)
            let reader = try await readerTask.value
            #expect(reader.isOpen)
        }
    }

    /// The reader needs every characteristic of Table 11.
    @Test func serviceWithoutServer2ClientIsRejected() async throws {
        try await within {
            let air = SimulatedAir()
            let uuid = UUID()
            var definition = mdocChars.serviceDefinition(serviceUUID: uuid, identValue: nil)
            definition.characteristics.removeAll { $0.uuid == mdocChars.server2Client }
            let server = try await air.makeRadio().advertise(definition) { _ in }
            defer { server.close() }
            let outcome = await transportError {
                _ = try await BLETransport(radio: air.makeRadio())
                    .connect(BLEEndpoint(serviceUUID: uuid, mode: .mdocPeripheralServer))
            }
            #expect(outcome == .characteristicNotFound(mdocChars.server2Client))
            #expect(air.connectedLinkCount == 0)
        }
    }
}
