import NIOCore

/// The client → server operations, written straight into a `ByteBuffer`.
package enum ClientCommand {
    static let crlf: [UInt8] = [13, 10]

    /// Subjects, reply subjects and queue groups: non-empty, at most `maxLength` bytes, no whitespace or control
    /// characters (they would split the control line), no empty tokens.
    /// One pass over the UTF-8 bytes (this runs for every message published): printable, no empty token, and
    /// without wildcard tokens (`*`, `>`) when they are not allowed.
    package static func validate(subject: String, allowWildcards: Bool = true) throws(NATSError) {
        var tokenLength = 0
        var wildcardToken = false
        var count = 0
        for byte in subject.utf8 {
            count += 1
            guard byte > 32, byte != 127, count <= 4096 else { throw .invalidSubject(subject) }
            if byte == UInt8(ascii: ".") {
                guard tokenLength > 0, allowWildcards || !wildcardToken else { throw .invalidSubject(subject) }
                tokenLength = 0
                wildcardToken = false
            } else {
                tokenLength += 1
                wildcardToken = tokenLength == 1 && (byte == UInt8(ascii: "*") || byte == UInt8(ascii: ">"))
            }
        }
        guard tokenLength > 0, allowWildcards || !wildcardToken else { throw .invalidSubject(subject) }
    }

    package static func validate(queue: String) throws(NATSError) {
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
