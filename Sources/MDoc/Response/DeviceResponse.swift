import Foundation
import TesseraCBOR

/// `DeviceResponse = {"version": tstr, ? "documents": [+ Document], ? "documentErrors": [+ DocumentError],
/// "status": uint}` (§8.3.2.1.2.2).
public struct DeviceResponse: Codable, Sendable, Equatable {
    /// Status codes (§8.3.2.1.2.3, Table 8).
    public enum Status: UInt64, Sendable {
        /// Normal processing.
        case ok = 0
        /// The mdoc returns an error without giving a reason.
        case generalError = 10
        /// The request the mdoc received is not valid CBOR.
        case cborDecodingError = 11
        /// The request is CBOR but not the structure it should be (e.g. wrong CDDL structure).
        case cborValidationError = 12
    }

    /// `"1.0"` when built here; a received response must have a version starting with `"1."`.
    public var version: String
    /// The returned documents; nil (the key is left out) when none is returned.
    public var documents: [Document]?
    /// `DocumentError = {DocType => ErrorCode}`.
    public var documentErrors: [[String: Int]]?
    /// The status code as received (Table 8); compare with `Status.rawValue`, other values are kept.
    public var status: UInt64

    /// A response as the holder builds it; `DeviceResponseGenerator.generate` is the usual way.
    public init(version: String = "1.0", documents: [Document]?, documentErrors: [[String: Int]]? = nil, status: Status = .ok) {
        self.version = version
        self.documents = documents
        self.documentErrors = documentErrors
        self.status = status.rawValue
    }

    /// Reads a received DeviceResponse. Every IssuerSignedItemBytes, DeviceNameSpacesBytes and MSO keeps
    /// its received bytes, so digests and signatures are checked over what was sent; nothing is verified here
    /// (`MDocVerifier` does that).
    /// - Throws: `MDocError.malformed` (with the key path and byte offset) or `.cose` for bytes that are not a
    ///   DeviceResponse, `.unsupportedVersion` for a version other than `1.x`.
    public init(bytes: Data) throws(MDocError) {
        self = try readStructure("DeviceResponse", from: bytes, Self.init(reading:))
        guard version.hasPrefix("1.") else { throw .unsupportedVersion(structure: "DeviceResponse", version: version) }
    }

    /// Reads the structure from its decoded item without Codable (the reader's hot path).
    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        version = try fields.field("version", Read.text)
        documents = try fields.optionalField("documents") { (i) throws(ReadFailure) in try Read.array(i, Document.init(reading:)) }
        documentErrors = try fields.optionalField("documentErrors") { (i) throws(ReadFailure) in
            try Read.array(i) { (e) throws(ReadFailure) in try Read.textKeyed(e, Read.int) }
        }
        status = try fields.field("status", Read.uint64)
    }

    /// The deterministic encoding (§8.3.2.1: RFC 8949 §4.2.1), each embedded item's bytes as held.
    public func encoded() throws(MDocError) -> Data {
        // Room for the items and the issuer certificate without regrowing, for a typical response.
        var writer = CBORStreamWriter(capacity: 4_096)
        write(into: &writer)
        return writer.data
    }

    /// The structure as a CBOR item, built directly (the holder's hot path); the same item the Codable
    /// encoding produces.
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: "version", value: .text(version))
        if let documents { map.append(key: "documents", value: .array(documents.map(\.cbor))) }
        if let documentErrors {
            map.append(key: "documentErrors", value: .array(documentErrors.map(CBOR.textKeyedIntegers)))
        }
        map.append(key: "status", value: .unsigned(status))
        return .map(map)
    }
}

/// `Document = {"docType": tstr, "issuerSigned": IssuerSigned, "deviceSigned": DeviceSigned,
/// ? "errors": Errors}` (§8.3.2.1.2.2).
public struct Document: Codable, Sendable, Equatable {
    /// The document type, e.g. `MDL.docType`; the verifier checks it equals the MSO's (§9.3.1).
    public var docType: String
    /// The disclosed elements and the issuer's signature over the MSO.
    public var issuerSigned: IssuerSigned
    /// Device-signed elements and the device's DeviceSignature or DeviceMac over the session.
    public var deviceSigned: DeviceSigned
    /// `Errors = {+ NameSpace => {+ DataElementIdentifier => ErrorCode}}`.
    public var errors: [String: [String: Int]]?

    /// A Document; `errors` lists elements the holder did not return, with their error codes.
    public init(docType: String, issuerSigned: IssuerSigned, deviceSigned: DeviceSigned, errors: [String: [String: Int]]? = nil) {
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.deviceSigned = deviceSigned
        self.errors = errors
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        docType = try fields.field("docType", Read.text)
        issuerSigned = try fields.field("issuerSigned", IssuerSigned.init(reading:))
        deviceSigned = try fields.field("deviceSigned", DeviceSigned.init(reading:))
        errors = try fields.optionalField("errors") { (i) throws(ReadFailure) in
            try Read.textKeyed(i) { (e) throws(ReadFailure) in try Read.textKeyed(e, Read.int) }
        }
    }

    /// The structure as a CBOR item (as the Codable encoding writes it).
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: "docType", value: .text(docType))
        map.append(key: "issuerSigned", value: issuerSigned.cbor)
        map.append(key: "deviceSigned", value: deviceSigned.cbor)
        if let errors {
            let perNamespace = errors.map { CBORMap.Entry(key: .text($0.key), value: CBOR.textKeyedIntegers($0.value)) }
            map.append(key: "errors", value: .map(CBORMap(perNamespace)))
        }
        return .map(map)
    }
}

extension CBOR {
    /// `{* tstr => int}` (ErrorCode maps of §8.3.2.1.2.2).
    static func textKeyedIntegers(_ values: [String: Int]) -> CBOR {
        .map(CBORMap(values.map { CBORMap.Entry(key: .text($0.key), value: .int($0.value)) }))
    }
}
