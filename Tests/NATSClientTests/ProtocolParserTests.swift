import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import NATSClient

@Suite("NATS protocol parser")
struct ProtocolParserTests {
    static let info = #"INFO {"server_id":"NABC","version":"2.9.10","proto":1,"headers":true,"max_payload":1048576,"nonce":"abc","connect_urls":["127.0.0.1:4223"]}"# + "\r\n"

    func parseAll(_ text: String, chunk: Int = .max, limits: NATSProtocolParser.Limits = .init()) throws -> [ServerOperation] {
        var parser = NATSProtocolParser(limits: limits)
        var out: [ServerOperation] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            parser.append(bytes[i..<min(i + chunk, bytes.count)])
            i += chunk
            while let op = try parser.next() { out.append(op) }
        }
        #expect(parser.bufferedCount == 0)
        return out
    }

    static let stream = info + "PING\r\npong\r\n+OK\r\n-ERR 'Permissions Violation for Publish to \"a.b\"'\r\n"
        + "MSG foo.bar 9 5\r\nhello\r\nMSG foo 1 _INBOX.x.1 0\r\n\r\n"
        + "HMSG _INBOX.x.2 3 16 16\r\nNATS/1.0 503\r\n\r\n\r\n"
        + "HMSG h 2 r 24 29\r\nNATS/1.0\r\nA: 1\r\nA: 2\r\n\r\nworld\r\n"

    @Test("every operation, whole and split at every chunk size", arguments: [Int.max, 1, 2, 3, 7, 64])
    func operations(_ chunk: Int) throws {
        let ops = try parseAll(Self.stream, chunk: chunk)
        try #require(ops.count == 9)
        guard case .info(let info) = ops[0] else { Issue.record("not INFO"); return }
        #expect(info.maxPayload == 1_048_576)
        #expect(info.nonce == "abc")
        #expect(info.connectURLs == ["127.0.0.1:4223"])
        #expect(ops[1] == .ping)
        #expect(ops[2] == .pong)
        #expect(ops[3] == .ok)
        #expect(ops[4] == .error(#"Permissions Violation for Publish to "a.b""#))
        #expect(ops[5] == .message(InboundMessage(subject: "foo.bar", sid: 9, payload: Data("hello".utf8))))
        #expect(ops[6] == .message(InboundMessage(subject: "foo", sid: 1, replyTo: "_INBOX.x.1", payload: Data())))
        guard case .message(let noResponders) = ops[7] else { Issue.record("not HMSG"); return }
        #expect(noResponders.status == NATSStatus(code: 503, description: ""))
        #expect(noResponders.payload.isEmpty)
        guard case .message(let withHeaders) = ops[8] else { Issue.record("not HMSG"); return }
        #expect(withHeaders.headers?.values(for: "a") == ["1", "2"])
        #expect(withHeaders.status == nil)
        #expect(withHeaders.replyTo == "r")
        #expect(withHeaders.payload == Data("world".utf8))
    }

    @Test("a payload may contain CR, LF and anything else")
    func binaryPayload() throws {
        let payload: [UInt8] = [13, 10, 0, 255, 77, 83, 71, 13, 10]
        var parser = NATSProtocolParser()
        parser.append(Array("MSG s 1 9\r\n".utf8) + payload + [13, 10])
        #expect(try parser.next() == .message(InboundMessage(subject: "s", sid: 1, payload: Data(payload))))
    }

    @Test("bad input throws a typed error and never traps", arguments: [
        "FOO\r\n", "MSG\r\n", "MSG a b 1\r\nx\r\n", "MSG a 1 -1\r\n", "MSG a 1 2\r\nabcd\r\n",
        "MSG a 1 2 3 4\r\n", "HMSG a 1 10 5\r\n", "HMSG a 1 5 5\r\nHELLO\r\n", "INFO {not json}\r\n",
        "PING extra\r\n", "MSG a 1 99999999999999\r\n", "HMSG a 1 15 15\r\nNATS/1.0 5x\r\n\r\n\r\n",
        "HMSG a 1 21 21\r\nNATS/1.0\r\nnocolon\r\n\r\n\r\n",
    ])
    func badInput(_ text: String) {
        var parser = NATSProtocolParser()
        parser.append(Array(text.utf8))
        #expect(throws: NATSError.self) {
            while try parser.next() != nil {}
        }
        // The failure is sticky: the stream cannot be resynchronised.
        #expect(throws: NATSError.self) { try parser.next() }
    }

    @Test("limits: control line length and max_payload")
    func limits() throws {
        var parser = NATSProtocolParser(limits: .init(maxControlLine: 32, maxPayload: 8))
        parser.append(Array(String(repeating: "A", count: 40).utf8))
        #expect(throws: NATSError.controlLineTooLong(limit: 32)) { try parser.next() }

        var small = NATSProtocolParser(limits: .init(maxControlLine: 32, maxPayload: 8))
        small.append(Array("MSG a 1 9\r\n".utf8))
        #expect(throws: NATSError.payloadTooLarge(size: 9, limit: 8)) { try small.next() }

        var ok = NATSProtocolParser(limits: .init(maxControlLine: 32, maxPayload: 8))
        ok.append(Array("MSG a 1 8\r\n12345678\r\n".utf8))
        #expect(try ok.next() != nil)
    }

    @Test("a partial message waits for more bytes")
    func partial() throws {
        var parser = NATSProtocolParser()
        parser.append(Array("MSG a 1 5\r\nhel".utf8))
        #expect(try parser.next() == nil)
        parser.append(Array("lo\r".utf8))
        #expect(try parser.next() == nil)
        parser.append([10])
        #expect(try parser.next() == .message(InboundMessage(subject: "a", sid: 1, payload: Data("hello".utf8))))
    }

    @Test("client commands: PUB, HPUB, SUB with queue, UNSUB, CONNECT")
    func commands() throws {
        var buffer = ByteBufferAllocator().buffer(capacity: 256)
        ClientCommand.writePublish(subject: "a.b", replyTo: "r", headers: nil, payload: Array("hi".utf8), into: &buffer)
        var headers = NATSHeaders()
        headers.append("X-Id", "7")
        let encoded = try headers.encoded()
        ClientCommand.writePublish(subject: "a", replyTo: nil, headers: encoded, payload: Array("x".utf8), into: &buffer)
        ClientCommand.writeSubscribe(subject: "q.>", queue: "workers", sid: 4, into: &buffer)
        ClientCommand.writeUnsubscribe(sid: 4, into: &buffer)
        #expect(
            buffer.readString(length: buffer.readableBytes)
                == "PUB a.b r 2\r\nhi\r\nHPUB a 21 22\r\nNATS/1.0\r\nX-Id: 7\r\n\r\nx\r\nSUB q.> workers 4\r\nUNSUB 4\r\n")
        for bad in ["", "a b", "a..b", "a.", ".a", ".", "tab\there", "nl\n", "del\u{7F}", String(repeating: "a", count: 4097)] {
            #expect(throws: NATSError.invalidSubject(bad)) { try ClientCommand.validate(subject: bad) }
        }
        for wildcard in ["a.*", ">", "*.b", "a.>", "a.*.c"] {
            #expect(throws: NATSError.invalidSubject(wildcard)) { try ClientCommand.validate(subject: wildcard, allowWildcards: false) }
            try ClientCommand.validate(subject: wildcard)
        }
        for good in ["a", "a.b", "a.*b", "a.b>", "OwnerSpace.x.forVault.app.bootstrap", "_INBOX.abc.1", String(repeating: "a", count: 4096)] {
            try ClientCommand.validate(subject: good, allowWildcards: false)
        }
        var badHeader = NATSHeaders()
        badHeader.append("X", "a\r\nB: injected")
        #expect(throws: NATSError.invalidHeader("X")) { try badHeader.encoded() }
    }

    @Test("the channel handler answers PING itself and forwards operations in order (EmbeddedChannel)")
    func channelHandler() async throws {
        let (stream, continuation) = AsyncStream<ConnectionEvent>.makeStream()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(NATSChannelHandler(limits: .init(), events: continuation))
        var input = channel.allocator.buffer(capacity: 128)
        input.writeString(Self.info + "PING\r\nMSG a 1 2\r\nhi\r\n")
        try channel.writeInbound(input)
        let pong = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: pong) == "PONG\r\n")
        var garbage = channel.allocator.buffer(capacity: 8)
        garbage.writeString("BOGUS\r\n")
        try channel.writeInbound(garbage)
        #expect(!channel.isActive)  // closed on a protocol violation
        var events: [ConnectionEvent] = []
        for await event in stream { events.append(event) }
        #expect(events.count == 3)
        if case .operation(.info) = events.first {} else { Issue.record("first event is not INFO") }
        if case .operation(.message(let m)) = events[1] { #expect(m.payload == Data("hi".utf8)) } else { Issue.record("no MSG") }
        if case .failed(.protocolViolation) = events[2] {} else { Issue.record("no protocol failure: \(events[2])") }
    }
}
