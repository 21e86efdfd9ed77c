import Foundation
import Testing
import TesseraTestSupport

@testable import ProximityTransport

/// The loopback radio: the same engine over Unix domain sockets, between two radios in this process and against
/// a second OS process.
@Suite struct LoopbackTests {
    static let modes: [BLEMode] = [.mdocPeripheralServer, .mdocCentralClient]

    /// A fresh runtime directory, removed afterwards.
    static func withDirectory<T: Sendable>(_ body: @Sendable (URL) async throws -> T) async throws -> T {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("tble-\(UUID().uuidString.prefix(8))", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func socketExists(_ radio: LoopbackRadio, _ uuid: UUID) -> Bool {
        FileManager.default.fileExists(atPath: radio.socketPath(for: uuid))
    }

    @Test(arguments: modes)
    func exchangeBetweenTwoRadios(mode: BLEMode) async throws {
        try await Self.withDirectory { directory in
            try await within {
                let mdocRadio = LoopbackRadio(directory: directory)
                let readerRadio = LoopbackRadio(directory: directory)
                let mdocTransport = BLETransport(radio: mdocRadio)
                let readerTransport = BLETransport(radio: readerRadio)
                let ep = endpoint(mode)
                let mdoc = try await mdocTransport.startAdvertising(ep)
                let reader = try await readerTransport.connect(ep)
                try await mdoc.waitForConnection()
                // Transmission started: the socket file (the advertisement) is gone.
                #expect(!Self.socketExists(mdocRadio, ep.serviceUUID))
                #expect(await mdocTransport.advertisedServices.isEmpty)
                #expect(await readerTransport.advertisedServices.isEmpty)

                for round in 0..<3 {
                    let request = message(2_500 + round, seed: UInt8(round + 1))
                    let response = message(20_000 + round * 1_000, seed: UInt8(round + 50))
                    try await reader.send(request)
                    #expect(try await mdoc.receive() == request)
                    try await mdoc.send(response)
                    #expect(try await reader.receive() == response)
                }
                #expect(mdoc.statistics.attMTU == 185 && reader.statistics.attMTU == 185)
                #expect(reader.statistics.bytesOnAirSent == mdoc.statistics.bytesOnAirReceived)
                await reader.sendEnd()
                #expect(await transportError { _ = try await mdoc.receive() } == .sessionEnded)
            }
        }
    }

    @Test func socketFileLivesExactlyAsLongAsTheAdvertisement() async throws {
        try await Self.withDirectory { directory in
            try await within {
                let radio = LoopbackRadio(directory: directory)
                let transport = BLETransport(radio: radio)
                let ep = endpoint(.mdocPeripheralServer)
                let weakHandle = try await {
                    let handle = try await transport.startAdvertising(ep)
                    #expect(Self.socketExists(radio, ep.serviceUUID))
                    #expect(await transport.advertisedServices == [ep.serviceUUID])
                    // The runtime directory is private to the user.
                    let attributes = try FileManager.default.attributesOfItem(atPath: directory.path)
                    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
                    return Weak(handle)
                }()
                #expect(weakHandle.value == nil)
                #expect(!Self.socketExists(radio, ep.serviceUUID))
                #expect(await transport.advertisedServices.isEmpty)
            }
        }
    }

    @Test func negotiatedMTUIsTheSmallerOfTheTwo() async throws {
        try await Self.withDirectory { directory in
            try await within {
                let mdoc = BLETransport(radio: LoopbackRadio(directory: directory, attMTU: 100))
                let reader = BLETransport(radio: LoopbackRadio(directory: directory, attMTU: 517))
                let ep = endpoint(.mdocPeripheralServer)
                let m = try await mdoc.startAdvertising(ep)
                let r = try await reader.connect(ep)
                try await r.send(message(1_000))
                #expect(try await m.receive() == message(1_000))
                // 1000 bytes at ATT_MTU 100: 96 per chunk ⇒ 11 chunks.
                #expect(r.statistics.attMTU == 100 && r.statistics.chunksSent == 11)
                #expect(r.statistics.bytesOnAirSent == (try TransportStatistics.bytesOnAir(messageLength: 1_000, attMTU: 100)))
            }
        }
    }

    @Test func serviceNotFoundAndAlreadyAdvertising() async throws {
        try await Self.withDirectory { directory in
            try await within {
                let reader = BLETransport(
                    radio: LoopbackRadio(directory: directory),
                    configuration: BLETransportConfiguration(scanTimeout: .milliseconds(60)))
                let ep = endpoint(.mdocPeripheralServer)
                #expect(await transportError { _ = try await reader.connect(ep) } == .serviceNotFound(ep.serviceUUID))

                let first = BLETransport(radio: LoopbackRadio(directory: directory))
                let second = BLETransport(radio: LoopbackRadio(directory: directory))
                let handle = try await first.startAdvertising(ep)
                #expect(await transportError { _ = try await first.startAdvertising(ep) } == .alreadyAdvertising(ep.serviceUUID))
                // Another radio (another process, as far as it can tell) finds the live socket.
                #expect(await transportError { _ = try await second.startAdvertising(ep) } == .alreadyAdvertising(ep.serviceUUID))
                #expect(handle.isOpen)
                handle.close()
                let again = try await second.startAdvertising(ep)
                again.close()
            }
        }
    }

    @Test func socketLeftByADeadProcessIsReplaced() async throws {
        try await Self.withDirectory { directory in
            try await within {
                let radio = LoopbackRadio(directory: directory)
                let ep = endpoint(.mdocPeripheralServer)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                // Bound, then closed without unlinking: what a killed process leaves.
                let fd = try UnixSocket.listen(path: radio.socketPath(for: ep.serviceUUID))
                UnixSocket.closeDescriptor(fd)
                #expect(Self.socketExists(radio, ep.serviceUUID))
                let mdoc = try await BLETransport(radio: radio).startAdvertising(ep)
                let reader = try await BLETransport(radio: LoopbackRadio(directory: directory)).connect(ep)
                try await reader.send(Data([7]))
                #expect(try await mdoc.receive() == Data([7]))
            }
        }
    }

    @Test(arguments: modes)
    func peerGoneIsDisconnected(mode: BLEMode) async throws {
        try await Self.withDirectory { directory in
            try await within {
                let ep = endpoint(mode)
                let mdoc = try await BLETransport(radio: LoopbackRadio(directory: directory)).startAdvertising(ep)
                let reader = try await BLETransport(radio: LoopbackRadio(directory: directory)).connect(ep)
                try await mdoc.waitForConnection()
                async let waiting = transportError { _ = try await reader.receive() }
                try await Task.sleep(for: .milliseconds(20))
                mdoc.close()  // the socket closes without State End, as when the process is killed
                #expect(await waiting == .disconnected)
                #expect(await transportError { try await reader.send(Data([1])) } == .disconnected)
            }
        }
    }

    @Test func identMismatchOverLoopback() async throws {
        try await Self.withDirectory { directory in
            try await within {
                let uuid = UUID()
                var wrong = testIdent
                wrong[0] ^= 0xFF
                let reader = BLETransport(radio: LoopbackRadio(directory: directory))
                let readerTask = Task {
                    await transportError {
                        _ = try await reader.connect(BLEEndpoint(serviceUUID: uuid, mode: .mdocCentralClient, ident: wrong))
                    }
                }
                let mdoc = try await BLETransport(radio: LoopbackRadio(directory: directory))
                    .startAdvertising(BLEEndpoint(serviceUUID: uuid, mode: .mdocCentralClient, ident: testIdent))
                #expect(await transportError { try await mdoc.waitForConnection() } == .identMismatch)
                readerTask.cancel()
                #expect(await readerTask.value == .closed)
            }
        }
    }

    @Test func centralBreakingTheFramingIsCutOff() async throws {
        try await Self.withDirectory { directory in
            try await within {
                let radio = LoopbackRadio(directory: directory)
                let ep = endpoint(.mdocPeripheralServer)
                let mdoc = try await BLETransport(radio: radio).startAdvertising(ep)
                let chars = BLEServiceCharacteristics.mdocService
                // Hand-made frames from a raw socket.
                let fd = try UnixSocket.connect(path: radio.socketPath(for: ep.serviceUUID))
                defer { UnixSocket.closeDescriptor(fd) }
                try UnixSocket.sendAll(fd, LoopbackFrame.hello(attMTU: 185).encoded())
                try UnixSocket.sendAll(fd, LoopbackFrame.subscribeRequest(chars.state).encoded())
                try UnixSocket.sendAll(fd, LoopbackFrame.subscribeRequest(chars.server2Client).encoded())
                try UnixSocket.sendAll(fd, LoopbackFrame.writeCommand(chars.state, Data([0x01])).encoded())
                try await mdoc.waitForConnection()
                // A frame claiming 1 MB.
                try UnixSocket.sendAll(fd, [0x00, 0x10, 0x00, 0x00, 0x07])
                #expect(await transportError { _ = try await mdoc.receive() } == .disconnected)
            }
        }
    }

    /// A second OS process plays the reader (Python, standard library only): it connects, starts the session,
    /// sends one message, and is then killed. The mdoc must see `.disconnected`.
    @Test func killedPeerProcessIsDisconnected() async throws {
        let python = try #require(PythonPeer.interpreter, "\(PythonPeer.missingMessage)")
        try await Self.withDirectory { directory in
            try await within(20) {
                let radio = LoopbackRadio(directory: directory)
                let ep = endpoint(.mdocPeripheralServer)
                let mdoc = try await BLETransport(radio: radio).startAdvertising(ep)
                let chars = BLEServiceCharacteristics.mdocService
                let process = Process()
                process.executableURL = URL(fileURLWithPath: python)
                process.arguments = [
                    "-c", Self.pythonReader, radio.socketPath(for: ep.serviceUUID),
                    Hex.encode(chars.state.bytes), Hex.encode(chars.client2Server.bytes),
                    Hex.encode(chars.server2Client.bytes),
                ]
                try process.run()
                defer { if process.isRunning { process.terminate() } }
                try await mdoc.waitForConnection()
                #expect(try await mdoc.receive() == Data("hello from another process".utf8))
                kill(process.processIdentifier, SIGKILL)
                #expect(await transportError { _ = try await mdoc.receive() } == .disconnected)
                process.waitUntilExit()
                #expect(process.terminationReason == .uncaughtSignal)
            }
        }
    }

    static let pythonReader = #"""
import socket, struct, sys, time
path, state, c2s, s2c = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3]), bytes.fromhex(sys.argv[4])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
def send(op, body):
    s.sendall(struct.pack(">I", 1 + len(body)) + bytes([op]) + body)
def recv_frame():
    head = b""
    while len(head) < 4:
        head += s.recv(4 - len(head))
    n = struct.unpack(">I", head)[0]
    body = b""
    while len(body) < n:
        body += s.recv(n - len(body))
    return body
send(1, struct.pack(">H", 185))
assert recv_frame()[0] == 2
for uuid in (state, s2c):
    send(5, uuid)
    assert recv_frame()[0] == 6
send(7, state + b"\x01")
send(7, c2s + b"\x00" + b"hello from another process")
time.sleep(600)
"""#
}

/// The loopback wire format.
@Suite struct LoopbackFrameTests {
    @Test func framesRoundTrip() throws {
        let uuid = BLEServiceCharacteristics.mdocService.state
        let frames: [LoopbackFrame] = [
            .hello(attMTU: 517),
            .welcome(attMTU: 185, service: UUID(), characteristics: [LoopbackCharacteristic(uuid: uuid, properties: 6)]),
            .readRequest(uuid), .readResponse(uuid, status: 0, value: Data([1, 2])),
            .subscribeRequest(uuid), .subscribeResponse(uuid, status: 2),
            .writeCommand(uuid, Data([0x01])), .notification(uuid, Data(repeating: 9, count: 512)),
        ]
        var buffer = LoopbackFrameBuffer()
        let stream = frames.flatMap { $0.encoded() }
        // Byte by byte, as a stream may deliver it.
        var decoded: [LoopbackFrame] = []
        for byte in stream {
            buffer.append([byte][...])
            while let frame = try buffer.next() { decoded.append(frame) }
        }
        #expect(decoded == frames)
        #expect(Array(LoopbackFrame.hello(attMTU: 185).encoded()) == [0, 0, 0, 3, 1, 0, 185])
    }

    @Test(arguments: [
        ([0, 0, 0, 0] as [UInt8], "frame length 0"),
        ([0, 0, 0x08, 0x01, 7], "frame length 2049"),
        ([0, 0, 0, 1, 0x09], "unknown opcode"),
        ([0, 0, 0, 2, 0x01, 0x00], "bad hello"),
        ([0, 0, 0, 5, 0x03, 1, 2, 3, 4], "bad request"),
    ])
    func malformedFramesAreRejected(bytes: [UInt8], reason: String) {
        var buffer = LoopbackFrameBuffer()
        buffer.append(bytes[...])
        #expect(throws: LoopbackFrame.Malformed(reason: reason)) { _ = try buffer.next() }
    }
}
