import Foundation
import TesseraCBOR
import TesseraCOSE

/// `DeviceRequest = {"version": tstr, "docRequests": [+ DocRequest], * tstr => any}` (§8.3.2.1.2.1).
/// Version "1.0"; the 1.1 fields (`deviceRequestInfo`, `readerAuthAll`) and any others are tolerated.
public struct DeviceRequest: Codable, Sendable, Equatable {
    /// `"1.0"` when built here; a received request must have a version starting with `"1."`.
    public var version: String
    /// One DocRequest per document asked for; never empty in a received request.
    public var docRequests: [DocRequest]

    /// A request to encode and send as the reader.
    public init(version: String = "1.0", docRequests: [DocRequest]) {
        self.version = version
        self.docRequests = docRequests
    }

    /// Reads a received DeviceRequest. Each ItemsRequestBytes keeps its received bytes (ReaderAuth covers
    /// them), so reading and re-encoding never changes what is verified.
    /// - Throws: `MDocError.malformed` (with the key path and byte offset) or `.cose` (a bad ReaderAuth) for bytes that
    ///   are not a DeviceRequest, `.unsupportedVersion` for a version other than `1.x`, `.invalidStructure` for an
    ///   empty `docRequests`.
    public init(bytes: Data) throws(MDocError) {
        if let fast = Self.fastRead(bytes) {
            self = fast
        } else {
            self = try readStructure("DeviceRequest", from: bytes, Self.init(reading:))
        }
        guard version.hasPrefix("1.") else { throw .unsupportedVersion(structure: "DeviceRequest", version: version) }
        guard !docRequests.isEmpty else {
            throw .invalidStructure(structure: "DeviceRequest", reason: "docRequests is empty")
        }
    }

    /// Reads the structure from its decoded item without Codable (the holder's hot path).
    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        version = try fields.field("version", Read.text)
        docRequests = try fields.field("docRequests") { (i) throws(ReadFailure) in try Read.array(i, DocRequest.init(reading:)) }
    }

    /// The deterministic encoding, each ItemsRequestBytes as held.
    public func encoded() throws(MDocError) -> Data { cbor.encoded(options: .deterministic) }

    /// The structure as a CBOR item, built directly; the same item the Codable encoding produces.
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: "version", value: .text(version))
        map.append(key: "docRequests", value: .array(docRequests.map(\.cbor)))
        return .map(map)
    }
}

/// `DocRequest = {"itemsRequest": ItemsRequestBytes, ? "readerAuth": ReaderAuth}` (§8.3.2.1.2.1).
public struct DocRequest: Codable, Sendable, Equatable {
    /// `ItemsRequestBytes = #6.24(bstr .cbor ItemsRequest)`, bytes kept: ReaderAuthentication covers them.
    public var itemsRequest: EncodedCBOR<ItemsRequest>
    /// `ReaderAuth = COSE_Sign1` with detached payload ReaderAuthenticationBytes (§9.1.4).
    public var readerAuth: COSESign1?

    /// A DocRequest; pass `readerAuth` from `ReaderAuthentication.sign` to authenticate the reader.
    public init(itemsRequest: EncodedCBOR<ItemsRequest>, readerAuth: COSESign1? = nil) {
        self.itemsRequest = itemsRequest
        self.readerAuth = readerAuth
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        itemsRequest = try fields.field("itemsRequest") { (i) throws(ReadFailure) in try Read.embedded(i, ItemsRequest.init(reading:)) }
        readerAuth = try fields.optionalField("readerAuth", Read.sign1)
    }

    /// ReaderAuth is embedded untagged (§9.1.4), as the Codable encoding writes it.
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: "itemsRequest", value: itemsRequest.cbor)
        if let readerAuth { map.append(key: "readerAuth", value: readerAuth.cbor(tagged: false)) }
        return .map(map)
    }
}

/// `ItemsRequest = {"docType": tstr, "nameSpaces": {+ tstr => {+ tstr => IntentToRetain}},
/// ? "requestInfo": {* tstr => any}}` (§8.3.2.1.2.1).
public struct ItemsRequest: Codable, Sendable, Equatable {
    /// The document type asked for, e.g. `MDL.docType`.
    public var docType: String
    /// Namespace → element identifier → IntentToRetain.
    public var nameSpaces: [String: [String: Bool]]
    /// Additional information for the holder, kept as received and not interpreted.
    public var requestInfo: [String: CBOR]?

    /// An ItemsRequest; wrap it once with `EncodedCBOR(encoding:)` and keep those bytes for ReaderAuth.
    public init(docType: String, nameSpaces: [String: [String: Bool]], requestInfo: [String: CBOR]? = nil) {
        self.docType = docType
        self.nameSpaces = nameSpaces
        self.requestInfo = requestInfo
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        docType = try fields.field("docType", Read.text)
        nameSpaces = try fields.field("nameSpaces") { (i) throws(ReadFailure) in
            try Read.textKeyed(i) { (elements) throws(ReadFailure) in try Read.textKeyed(elements, Read.bool) }
        }
        requestInfo = try fields.optionalField("requestInfo") { (i) throws(ReadFailure) in try Read.textKeyed(i, Read.any) }
    }

    /// The requested elements as (namespace, element) pairs in a stable order.
    public var requestedElements: [(namespace: String, element: String)] {
        nameSpaces.keys.sorted().flatMap { ns in (nameSpaces[ns] ?? [:]).keys.sorted().map { (ns, $0) } }
    }
}
