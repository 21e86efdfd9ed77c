import Foundation

/// Incremental parser of the server side of the NATS client protocol. Feed it bytes as they arrive with `append`,
/// then call `next()` until it returns nil (more bytes needed). It never traps on bad input: a violation or a
/// limit exceeded throws, after which the connection must be closed (the stream cannot be resynchronised).
///
/// Grammar (NATS client protocol): `INFO {json}`, `MSG <subject> <sid> [reply-to] <#bytes>` + payload,
/// `HMSG <subject> <sid> [reply-to] <#header bytes> <#total bytes>` + headers + payload, `PING`, `PONG`, `+OK`,
/// `-ERR '<text>'`; operation names are case-insensitive and every line and payload ends with CRLF.
public struct NATSProtocolParser: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Longest control line (operation name and arguments, or an INFO JSON) accepted.
        public var maxControlLine: Int
        /// Largest message (headers and payload together), normally the server's `max_payload`.
        public var maxPayload: Int

        public init(maxControlLine: Int = 64 * 1024, maxPayload: Int = 64 * 1024 * 1024) {
            self.maxControlLine = maxControlLine
            self.maxPayload = maxPayload
        }
    }

    public var limits: Limits
    private var buffer: [UInt8] = []
    private var start = 0
    private var failed: NATSError?

    public init(limits: Limits = .init()) { self.limits = limits }

    /// Bytes waiting to be parsed.
    public var bufferedCount: Int { buffer.count - start }

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete operation, nil when more bytes are needed. After an error every call throws it again.
    public mutating func next() throws(NATSError) -> ServerOperation? {
        if let failed { throw failed }
        do {
            return try parseOne()
        } catch {
            failed = error
            throw error
        }
    }

    private mutating func parseOne() throws(NATSError) -> ServerOperation? {
        guard let newline = buffer[start...].firstIndex(of: 10) else {
            if buffer.count - start > limits.maxControlLine { throw .controlLineTooLong(limit: limits.maxControlLine) }
            return nil
        }
        var lineEnd = newline
        if lineEnd > start, buffer[lineEnd - 1] == 13 { lineEnd -= 1 }
        guard lineEnd - start <= limits.maxControlLine else { throw .controlLineTooLong(limit: limits.maxControlLine) }
        let line = buffer[start..<lineEnd]
        let nameEnd = line.firstIndex { $0 == 32 || $0 == 9 } ?? line.endIndex
        let name = String(decoding: line[line.startIndex..<nameEnd], as: UTF8.self).uppercased()
        let rest = line[nameEnd...]
        let afterLine = newline + 1

        switch name {
        case "PING", "PONG", "+OK":
            guard Self.isBlank(rest) else { throw .protocolViolation("arguments after \(name)") }
            start = afterLine
            return name == "PING" ? .ping : name == "PONG" ? .pong : .ok
        case "-ERR":
            start = afterLine
            var text = String(decoding: rest, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") { text = String(text.dropFirst().dropLast()) }
            return .error(text)
        case "INFO":
            guard let info = try? JSONDecoder().decode(ServerInfo.self, from: Data(rest)) else {
                throw .protocolViolation("INFO is not the expected JSON")
            }
            start = afterLine
            return .info(info)
        case "MSG", "HMSG":
            return try parseMessage(arguments: Self.split(rest), withHeaders: name == "HMSG", payloadStart: afterLine)
        default:
            throw .protocolViolation("unknown operation")
        }
    }

    /// MSG/HMSG: the payload follows the control line and ends with CRLF; nil until all of it has arrived.
    private mutating func parseMessage(
        arguments: [ArraySlice<UInt8>], withHeaders: Bool, payloadStart: Int
    ) throws(NATSError) -> ServerOperation? {
        let sizeCount = withHeaders ? 2 : 1
        guard arguments.count == 2 + sizeCount || arguments.count == 3 + sizeCount else {
            throw .protocolViolation("wrong number of MSG arguments")
        }
        let subject = String(decoding: arguments[0], as: UTF8.self)
        guard let sid = Self.number(arguments[1]) else { throw .protocolViolation("bad sid") }
        let replyTo = arguments.count == 3 + sizeCount ? String(decoding: arguments[2], as: UTF8.self) : nil
        guard let total = Self.number(arguments[arguments.count - 1]) else { throw .protocolViolation("bad size") }
        var headerSize: UInt64 = 0
        if withHeaders {
            guard let h = Self.number(arguments[arguments.count - 2]), h <= total else {
                throw .protocolViolation("bad header size")
            }
            headerSize = h
        }
        guard total <= UInt64(limits.maxPayload) else {
            throw .payloadTooLarge(size: Int(clamping: total), limit: limits.maxPayload)
        }
        let size = Int(total)
        guard buffer.count - payloadStart >= size + 2 else { return nil }
        let end = payloadStart + size
        guard buffer[end] == 13, buffer[end + 1] == 10 else { throw .protocolViolation("payload not followed by CRLF") }
        var headers: NATSHeaders?
        var status: NATSStatus?
        let bodyStart = payloadStart + Int(headerSize)
        if withHeaders {
            (headers, status) = try NATSHeaders.parse(buffer[payloadStart..<bodyStart])
        }
        let message = InboundMessage(
            subject: subject, sid: sid, replyTo: replyTo, headers: headers, status: status,
            payload: Data(buffer[bodyStart..<end]))
        start = end + 2
        return .message(message)
    }

    private static func isBlank(_ bytes: ArraySlice<UInt8>) -> Bool { bytes.allSatisfy { $0 == 32 || $0 == 9 } }

    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        bytes.split(whereSeparator: { $0 == 32 || $0 == 9 })
    }

    /// A decimal number of at most 12 digits (sizes and sids), nil otherwise.
    private static func number(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty, digits.count <= 12 else { return nil }
        var value: UInt64 = 0
        for d in digits {
            guard d >= 48, d <= 57 else { return nil }
            value = value * 10 + UInt64(d - 48)
        }
        return value
    }
}
