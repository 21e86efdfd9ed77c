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
        self = try decodeStructure(Self.self, "DeviceResponse", from: bytes)
        guard version.hasPrefix("1.") else { throw .unsupportedVersion(structure: "DeviceResponse", version: version) }
    }

    public func encoded() throws(MDocError) -> Data { try encodeStructure(self, "DeviceResponse") }
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
}
