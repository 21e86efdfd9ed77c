import Foundation
import TesseraCBOR
import TesseraCOSE

/// `DeviceRequest = {"version": tstr, "docRequests": [+ DocRequest], * tstr => any}` (§8.3.2.1.2.1).
/// Version "1.0"; the 1.1 fields (`deviceRequestInfo`, `readerAuthAll`) and any others are tolerated.
public struct DeviceRequest: Codable, Sendable, Equatable {
    public var version: String
    public var docRequests: [DocRequest]

    public init(version: String = "1.0", docRequests: [DocRequest]) {
        self.version = version
        self.docRequests = docRequests
    }

    public init(bytes: Data) throws(MDocError) {
        self = try decodeStructure(Self.self, "DeviceRequest", from: bytes)
        guard version.hasPrefix("1.") else { throw .unsupportedVersion(structure: "DeviceRequest", version: version) }
        guard !docRequests.isEmpty else {
            throw .invalidStructure(structure: "DeviceRequest", reason: "docRequests is empty")
        }
    }

    public func encoded() throws(MDocError) -> Data { try encodeStructure(self, "DeviceRequest") }
}

/// `DocRequest = {"itemsRequest": ItemsRequestBytes, ? "readerAuth": ReaderAuth}` (§8.3.2.1.2.1).
public struct DocRequest: Codable, Sendable, Equatable {
    /// `ItemsRequestBytes = #6.24(bstr .cbor ItemsRequest)`, bytes kept: ReaderAuthentication covers them.
    public var itemsRequest: EncodedCBOR<ItemsRequest>
    /// `ReaderAuth = COSE_Sign1` with detached payload ReaderAuthenticationBytes (§9.1.4).
    public var readerAuth: COSESign1?

    public init(itemsRequest: EncodedCBOR<ItemsRequest>, readerAuth: COSESign1? = nil) {
        self.itemsRequest = itemsRequest
        self.readerAuth = readerAuth
    }
}

/// `ItemsRequest = {"docType": tstr, "nameSpaces": {+ tstr => {+ tstr => IntentToRetain}},
/// ? "requestInfo": {* tstr => any}}` (§8.3.2.1.2.1).
public struct ItemsRequest: Codable, Sendable, Equatable {
    public var docType: String
    /// Namespace → element identifier → IntentToRetain.
    public var nameSpaces: [String: [String: Bool]]
    public var requestInfo: [String: CBOR]?

    public init(docType: String, nameSpaces: [String: [String: Bool]], requestInfo: [String: CBOR]? = nil) {
        self.docType = docType
        self.nameSpaces = nameSpaces
        self.requestInfo = requestInfo
    }

    /// The requested elements as (namespace, element) pairs in a stable order.
    public var requestedElements: [(namespace: String, element: String)] {
        nameSpaces.keys.sorted().flatMap { ns in (nameSpaces[ns] ?? [:]).keys.sorted().map { (ns, $0) } }
    }
}
