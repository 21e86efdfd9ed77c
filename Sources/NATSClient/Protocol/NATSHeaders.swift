import Foundation

/// The status line of a header block, `NATS/1.0 <code> <description>` (e.g. 503 "no responders").
public struct NATSStatus: Sendable, Equatable {
    public var code: Int
    public var description: String

    /// Sent by the server to a requester when no subscriber listens on the request subject (needs CONNECT
    /// `headers` and `no_responders`).
    public static let noRespondersCode = 503
}

/// Message headers (HPUB/HMSG): ordered, a name may repeat. Names keep their case; lookups ignore it.
public struct NATSHeaders: Sendable, Equatable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    public var isEmpty: Bool { fields.isEmpty }
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    public static func == (lhs: NATSHeaders, rhs: NATSHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The wire form: `NATS/1.0\r\n`, one `Name: value\r\n` per field, then `\r\n`. Names must be printable
    /// ASCII without `:` or spaces, values without CR or LF.
    package func encoded() throws(NATSError) -> [UInt8] {
        var out = Array("NATS/1.0\r\n".utf8)
        for (name, value) in fields {
            guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }) else {
                throw .invalidHeader(name)
            }
            guard !value.utf8.contains(where: { $0 == 13 || $0 == 10 }) else { throw .invalidHeader(name) }
            out += Array(name.utf8) + Array(": ".utf8) + Array(value.utf8) + [13, 10]
        }
        out += [13, 10]
        return out
    }

    /// Parses a received header block; returns the headers and the status line's code and description if any.
    package static func parse(_ bytes: ArraySlice<UInt8>) throws(NATSError) -> (NATSHeaders, NATSStatus?) {
        var lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        guard let first = lines.first, first.hasPrefix("NATS/1.0") else {
            throw .protocolViolation("header block does not start with NATS/1.0")
        }
        lines.removeFirst()
        var status: NATSStatus?
        let rest = first.dropFirst("NATS/1.0".count).trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty {
            let codeText = rest.prefix { $0.isNumber }
            guard codeText.count == 3, let code = Int(codeText) else {
                throw .protocolViolation("bad status line")
            }
            status = NATSStatus(
                code: code, description: rest.dropFirst(3).trimmingCharacters(in: .whitespaces))
        }
        var headers = NATSHeaders()
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .protocolViolation("header line without ':'") }
            let name = String(line[..<colon])
            guard !name.isEmpty, !name.contains(" ") else { throw .protocolViolation("bad header name") }
            headers.append(name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return (headers, status)
    }
}
