import Foundation
import TesseraCBOR

/// `SessionEstablishment = {"eReaderKey": EReaderKeyBytes, "data": bstr}` (§9.1.1.4): the reader's
/// ephemeral key and its first encrypted DeviceRequest.
public struct SessionEstablishment: Codable, Sendable, Equatable {
    /// `EReaderKeyBytes = #6.24(bstr .cbor EReaderKey)`, bytes kept for the transcript.
    public var eReaderKey: EncodedCBOR<CBOR>
    /// The first SessionData ciphertext: the encrypted DeviceRequest (ciphertext ‖ 16-byte GCM tag).
    public var data: Data

    /// A SessionEstablishment as the reader sends it. Keep `eReaderKey`'s bytes: they go into the SessionTranscript.
    public init(eReaderKey: EncodedCBOR<CBOR>, data: Data) {
        self.eReaderKey = eReaderKey
        self.data = data
    }

    /// Reads the reader's first message, keeping the EReaderKeyBytes as received.
    /// - Throws: `MDocError.malformed` (with the key path and byte offset) for bytes that are not a SessionEstablishment.
    public init(bytes: Data) throws(MDocError) {
        if let fast = Self.fastRead(bytes) {
            self = fast
            return
        }
        self = try Self.readThroughTree(bytes)
    }

    /// The usual layout read without a decoded tree (see `FastCursor`); nil leaves it to the tree path.
    static func fastRead(_ bytes: Data) -> SessionEstablishment? {
        FastCursor.read(bytes) { (cursor) throws(FastCursor.GiveUp) -> SessionEstablishment in
            var eReaderKey: EncodedCBOR<CBOR>?
            var data: Data?
            for _ in 0..<(try cursor.count(5)) {
                if try cursor.key("eReaderKey") {
                    guard eReaderKey == nil else { throw FastCursor.GiveUp() }  // a repeated key
                    // The embedded COSE_Key is decoded on its own, as the tree path decodes it.
                    eReaderKey = EncodedCBOR.read(Data(try cursor.tag24())) { try? CBOR.decode($0) }
                    guard eReaderKey != nil else { throw FastCursor.GiveUp() }
                } else if try cursor.key("data") {
                    guard data == nil else { throw FastCursor.GiveUp() }  // a repeated key
                    data = try cursor.bytes()
                } else {
                    throw FastCursor.GiveUp()
                }
            }
            guard let eReaderKey, let data else { throw FastCursor.GiveUp() }
            return SessionEstablishment(eReaderKey: eReaderKey, data: data)
        }
    }

    /// The fast path alone (nil when it gives up); with ``readThroughTree(_:)``, the mdoc fuzz target checks that
    /// the two paths agree.
    @_spi(Fuzzing) public static func readWithoutTree(_ bytes: Data) -> SessionEstablishment? { fastRead(bytes) }
    /// The tree path alone: decodes to a `CBOR` tree and reads it, with the error and its path on failure.
    @_spi(Fuzzing) public static func readThroughTree(_ bytes: Data) throws(MDocError) -> SessionEstablishment {
        try readStructure("SessionEstablishment", from: bytes) { (item) throws(ReadFailure) in
            let fields = try MapReader(item)
            return SessionEstablishment(
                eReaderKey: try fields.field("eReaderKey") { (i) throws(ReadFailure) in try Read.embedded(i, Read.any) },
                data: try fields.field("data", Read.bytes))
        }
    }

    /// The deterministic encoding (the EReaderKeyBytes as held).
    public func encoded() throws(MDocError) -> Data {
        CBOR.map(CBORMap([CBORMap.Entry(key: "eReaderKey", value: eReaderKey.cbor), CBORMap.Entry(key: "data", value: .bytes(data))]))
            .encoded(options: .deterministic)
    }
}

/// `SessionData = {? "data": bstr, ? "status": uint}` (§9.1.1.4).
public struct SessionData: Codable, Sendable, Equatable {
    /// Status codes (§9.1.1.4, Table 20).
    public enum Status: UInt64, Sendable {
        /// Error: session encryption (a message did not decrypt); the session ends.
        case sessionEncryptionError = 10
        /// Error: CBOR decoding; the session ends.
        case cborDecodingError = 11
        /// Session termination, sent by either side to end the session.
        case sessionTermination = 20
    }

    /// Encrypted payload (ciphertext ‖ 16-byte GCM tag); nil in a status-only message.
    public var data: Data?
    /// Status code as received (Table 20); compare with `Status.rawValue`, other values are kept.
    public var status: UInt64?

    /// A SessionData with data, status, or both.
    public init(data: Data? = nil, status: Status? = nil) {
        self.data = data
        self.status = status?.rawValue
    }

    /// Reads a SessionData.
    /// - Throws: `MDocError.malformed` for bytes that are not a SessionData, `.invalidStructure` when it has neither
    ///   `data` nor `status`.
    public init(bytes: Data) throws(MDocError) {
        self = try readStructure("SessionData", from: bytes) { (item) throws(ReadFailure) in
            let fields = try MapReader(item)
            var message = SessionData()
            message.data = try fields.optionalField("data", Read.bytes)
            message.status = try fields.optionalField("status", Read.uint64)
            return message
        }
        guard data != nil || status != nil else {
            throw .invalidStructure(structure: "SessionData", reason: "has neither data nor status")
        }
    }

    /// The deterministic encoding ("data" sorts before "status"), written into one buffer: a response's ciphertext
    /// is copied once.
    public func encoded() throws(MDocError) -> Data {
        var writer = CBORStreamWriter(capacity: (data?.count ?? 0) + 32)
        writer.writeMapHead(count: (data == nil ? 0 : 1) + (status == nil ? 0 : 1))
        if let data {
            writer.writeText("data")
            writer.writeBytes(data)
        }
        if let status {
            writer.writeText("status")
            writer.writeUnsigned(status)
        }
        return writer.data
    }
}
