import Foundation
import TesseraCBOR

/// `SessionEstablishment = {"eReaderKey": EReaderKeyBytes, "data": bstr}` (§9.1.1.4): the reader's
/// ephemeral key and its first encrypted DeviceRequest.
public struct SessionEstablishment: Codable, Sendable, Equatable {
    /// `EReaderKeyBytes = #6.24(bstr .cbor EReaderKey)`, bytes kept for the transcript.
    public var eReaderKey: EncodedCBOR<CBOR>
    public var data: Data

    public init(eReaderKey: EncodedCBOR<CBOR>, data: Data) {
        self.eReaderKey = eReaderKey
        self.data = data
    }

    public init(bytes: Data) throws(MDocError) {
        self = try decodeStructure(Self.self, "SessionEstablishment", from: bytes)
    }

    public func encoded() throws(MDocError) -> Data { try encodeStructure(self, "SessionEstablishment") }
}

/// `SessionData = {? "data": bstr, ? "status": uint}` (§9.1.1.4).
public struct SessionData: Codable, Sendable, Equatable {
    /// Status codes (§9.1.1.4, Table 20).
    public enum Status: UInt64, Sendable {
        case sessionEncryptionError = 10
        case cborDecodingError = 11
        case sessionTermination = 20
    }

    public var data: Data?
    public var status: UInt64?

    public init(data: Data? = nil, status: Status? = nil) {
        self.data = data
        self.status = status?.rawValue
    }

    public init(bytes: Data) throws(MDocError) {
        self = try decodeStructure(Self.self, "SessionData", from: bytes)
        guard data != nil || status != nil else {
            throw .invalidStructure(structure: "SessionData", reason: "has neither data nor status")
        }
    }

    public func encoded() throws(MDocError) -> Data { try encodeStructure(self, "SessionData") }
}
