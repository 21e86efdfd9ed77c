import NIOCore

/// The client → server operations, written straight into a `ByteBuffer`.
enum ClientCommand {
    static let crlf: [UInt8] = [13, 10]

    /// Subjects, reply subjects and queue groups: non-empty, at most `maxLength` bytes, no whitespace or control
    /// characters (they would split the control line), no empty tokens.
    static func validate(subject: String, allowWildcards: Bool = true) throws(NATSError) {
        let bytes = subject.utf8
        guard !bytes.isEmpty, bytes.count <= 4096,
            bytes.allSatisfy({ $0 > 32 && $0 != 127 }),
            !subject.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
        else { throw .invalidSubject(subject) }
        if !allowWildcards, subject.split(separator: ".").contains(where: { $0 == "*" || $0 == ">" }) {
            throw .invalidSubject(subject)
        }
    }

    static func validate(queue: String) throws(NATSError) {
        guard !queue.isEmpty, queue.utf8.count <= 4096, queue.utf8.allSatisfy({ $0 > 32 && $0 != 127 }) else {
            throw .invalidSubject(queue)
        }
    }

    static func writeConnect(_ options: ConnectOptions, into buffer: inout ByteBuffer) {
        buffer.writeString("CONNECT ")
        buffer.writeBytes(options.json())
        buffer.writeBytes(crlf)
    }

    /// `PUB <subject> [reply-to] <#bytes>` or, with headers, `HPUB <subject> [reply-to] <#header bytes> <#total>`.
    static func writePublish(
        subject: String, replyTo: String?, headers: [UInt8]?, payload: some Collection<UInt8>, into buffer: inout ByteBuffer
    ) {
        buffer.writeString(headers == nil ? "PUB " : "HPUB ")
        buffer.writeString(subject)
        if let replyTo {
            buffer.writeString(" ")
            buffer.writeString(replyTo)
        }
        if let headers {
            buffer.writeString(" \(headers.count) \(headers.count + payload.count)\r\n")
            buffer.writeBytes(headers)
        } else {
            buffer.writeString(" \(payload.count)\r\n")
        }
        buffer.writeBytes(payload)
        buffer.writeBytes(crlf)
    }

    static func writeSubscribe(subject: String, queue: String?, sid: UInt64, into buffer: inout ByteBuffer) {
        buffer.writeString(queue.map { "SUB \(subject) \($0) \(sid)\r\n" } ?? "SUB \(subject) \(sid)\r\n")
    }

    static func writeUnsubscribe(sid: UInt64, max: Int? = nil, into buffer: inout ByteBuffer) {
        buffer.writeString(max.map { "UNSUB \(sid) \($0)\r\n" } ?? "UNSUB \(sid)\r\n")
    }

    static func writePing(into buffer: inout ByteBuffer) { buffer.writeString("PING\r\n") }
    static func writePong(into buffer: inout ByteBuffer) { buffer.writeString("PONG\r\n") }
}
