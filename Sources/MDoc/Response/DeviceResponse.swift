import Foundation
import TesseraCBOR

/// `DeviceResponse = {"version": tstr, ? "documents": [+ Document], ? "documentErrors": [+ DocumentError],
/// "status": uint}` (§8.3.2.1.2.2).
public struct DeviceResponse: Codable, Sendable, Equatable {
    /// Status codes (§8.3.2.1.2.3, Table 8).
    public enum Status: UInt64, Sendable {
        case ok = 0
        case generalError = 10
        case cborDecodingError = 11
        case cborValidationError = 12
    }

    public var version: String
    public var documents: [Document]?
    /// `DocumentError = {DocType => ErrorCode}`.
    public var documentErrors: [[String: Int]]?
    public var status: UInt64

    public init(version: String = "1.0", documents: [Document]?, documentErrors: [[String: Int]]? = nil, status: Status = .ok) {
        self.version = version
        self.documents = documents
        self.documentErrors = documentErrors
        self.status = status.rawValue
    }

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
    public var docType: String
    public var issuerSigned: IssuerSigned
    public var deviceSigned: DeviceSigned
    /// `Errors = {+ NameSpace => {+ DataElementIdentifier => ErrorCode}}`.
    public var errors: [String: [String: Int]]?

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
