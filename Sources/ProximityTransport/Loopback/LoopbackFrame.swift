import Foundation

/// The GATT operations the loopback radio carries over a Unix domain socket, one per frame:
/// `length (UInt32, big endian, counts what follows) ‖ opcode (UInt8) ‖ body`. UUIDs are 16 raw bytes.
/// Disconnecting is closing the socket.
enum LoopbackFrame: Sendable, Hashable {
    /// Client → server, first frame: the ATT_MTU the client asks for.
    case hello(attMTU: UInt16)
    /// Server → client, answer to hello: the agreed ATT_MTU and the service's characteristics.
    case welcome(attMTU: UInt16, service: UUID, characteristics: [LoopbackCharacteristic])
    case readRequest(UUID)
    /// `status` 0: value follows; otherwise a `LoopbackStatus`.
    case readResponse(UUID, status: UInt8, value: Data)
    case subscribeRequest(UUID)
    case subscribeResponse(UUID, status: UInt8)
    case writeCommand(UUID, Data)
    case notification(UUID, Data)

    /// Longest frame body accepted: a 512-byte attribute plus a UUID and a little framing, or a welcome with a few
    /// dozen characteristics.
    static let maximumLength = 2048

    enum Opcode: UInt8 {
        case hello = 1, welcome, readRequest, readResponse, subscribeRequest, subscribeResponse, writeCommand,
            notification
    }

    /// The whole frame, length prefix included.
    func encoded() -> [UInt8] {
        var body: [UInt8] = []
        switch self {
        case .hello(let mtu):
            body = [Opcode.hello.rawValue, UInt8(mtu >> 8), UInt8(mtu & 0xFF)]
        case .welcome(let mtu, let service, let characteristics):
            body = [Opcode.welcome.rawValue, UInt8(mtu >> 8), UInt8(mtu & 0xFF)]
            body += service.bytes
            body.append(UInt8(clamping: characteristics.count))
            for characteristic in characteristics.prefix(255) {
                body += characteristic.uuid.bytes
                body.append(characteristic.properties)
            }
        case .readRequest(let uuid):
            body = [Opcode.readRequest.rawValue] + uuid.bytes
        case .readResponse(let uuid, let status, let value):
            body = [Opcode.readResponse.rawValue] + uuid.bytes + [status] + value
        case .subscribeRequest(let uuid):
            body = [Opcode.subscribeRequest.rawValue] + uuid.bytes
        case .subscribeResponse(let uuid, let status):
            body = [Opcode.subscribeResponse.rawValue] + uuid.bytes + [status]
        case .writeCommand(let uuid, let value):
            body = [Opcode.writeCommand.rawValue] + uuid.bytes + value
        case .notification(let uuid, let value):
            body = [Opcode.notification.rawValue] + uuid.bytes + value
        }
        let length = UInt32(body.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
            + body
    }

    struct Malformed: Error, Equatable {
        let reason: String
    }

    /// Decodes one frame body (without the length prefix).
    init(body: ArraySlice<UInt8>) throws(Malformed) {
        var reader = ByteReader(body)
        guard let code = reader.byte(), let opcode = Opcode(rawValue: code) else {
            throw Malformed(reason: "unknown opcode")
        }
        switch opcode {
        case .hello:
            guard let mtu = reader.uint16(), reader.isAtEnd else { throw Malformed(reason: "bad hello") }
            self = .hello(attMTU: mtu)
        case .welcome:
            guard let mtu = reader.uint16(), let service = reader.uuid(), let count = reader.byte() else {
                throw Malformed(reason: "bad welcome")
            }
            var characteristics: [LoopbackCharacteristic] = []
            for _ in 0..<count {
                guard let uuid = reader.uuid(), let properties = reader.byte() else {
                    throw Malformed(reason: "bad welcome")
                }
                characteristics.append(LoopbackCharacteristic(uuid: uuid, properties: properties))
            }
            guard reader.isAtEnd else { throw Malformed(reason: "bad welcome") }
            self = .welcome(attMTU: mtu, service: service, characteristics: characteristics)
        case .readRequest, .subscribeRequest:
            guard let uuid = reader.uuid(), reader.isAtEnd else { throw Malformed(reason: "bad request") }
            self = opcode == .readRequest ? .readRequest(uuid) : .subscribeRequest(uuid)
        case .readResponse:
            guard let uuid = reader.uuid(), let status = reader.byte() else { throw Malformed(reason: "bad response") }
            self = .readResponse(uuid, status: status, value: Data(reader.rest()))
        case .subscribeResponse:
            guard let uuid = reader.uuid(), let status = reader.byte(), reader.isAtEnd else {
                throw Malformed(reason: "bad response")
            }
            self = .subscribeResponse(uuid, status: status)
        case .writeCommand, .notification:
            guard let uuid = reader.uuid() else { throw Malformed(reason: "bad value frame") }
            let value = Data(reader.rest())
            self = opcode == .writeCommand ? .writeCommand(uuid, value) : .notification(uuid, value)
        }
    }
}

struct LoopbackCharacteristic: Sendable, Hashable {
    let uuid: UUID
    /// `GATTCharacteristicProperties.rawValue`.
    let properties: UInt8
}

/// Status byte of read / subscribe responses.
enum LoopbackStatus: UInt8 {
    case ok = 0
    case notFound = 1
    case notPermitted = 2
}

/// Splits a byte stream into frame bodies.
struct LoopbackFrameBuffer {
    private var bytes: [UInt8] = []
    private var start = 0

    mutating func append(_ chunk: ArraySlice<UInt8>) {
        if start > 0 && start == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            start = 0
        }
        bytes.append(contentsOf: chunk)
    }

    /// The next complete frame body, nil if more bytes are needed.
    mutating func next() throws(LoopbackFrame.Malformed) -> LoopbackFrame? {
        guard bytes.count - start >= 4 else { return nil }
        let length = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
        guard length >= 1, length <= LoopbackFrame.maximumLength else {
            throw LoopbackFrame.Malformed(reason: "frame length \(length)")
        }
        guard bytes.count - start >= 4 + length else { return nil }
        let body = bytes[start + 4..<start + 4 + length]
        start += 4 + length
        let frame = try LoopbackFrame(body: body)
        if start > 65_536 {
            bytes.removeFirst(start)
            start = 0
        }
        return frame
    }
}

private struct ByteReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var isAtEnd: Bool { index == bytes.endIndex }

    mutating func byte() -> UInt8? {
        guard index < bytes.endIndex else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16() -> UInt16? {
        guard let high = byte(), let low = byte() else { return nil }
        return UInt16(high) << 8 | UInt16(low)
    }

    mutating func uuid() -> UUID? {
        guard bytes.endIndex - index >= 16 else { return nil }
        let b = Array(bytes[index..<index + 16])
        index += 16
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { index = bytes.endIndex }
        return bytes[index...]
    }
}

extension UUID {
    var bytes: [UInt8] {
        withUnsafeBytes(of: uuid) { Array($0) }
    }
}
