import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE

/// `MobileSecurityObject` (§9.1.2.4): what the issuer signs — the digests of every element,
/// the device key, and the validity window.
public struct MobileSecurityObject: Codable, Sendable, Equatable {
    public var version: String
    /// "SHA-256", "SHA-384" or "SHA-512" (§9.1.2.5).
    public var digestAlgorithm: String
    /// `ValueDigests = {+ NameSpace => {+ DigestID => Digest}}`.
    public var valueDigests: [String: [Int: Data]]
    public var deviceKeyInfo: DeviceKeyInfo
    public var docType: String
    public var validityInfo: ValidityInfo

    public init(
        version: String = "1.0", digestAlgorithm: DigestAlgorithm, valueDigests: [String: [Int: Data]],
        deviceKeyInfo: DeviceKeyInfo, docType: String, validityInfo: ValidityInfo
    ) {
        self.version = version
        self.digestAlgorithm = digestAlgorithm.rawValue
        self.valueDigests = valueDigests
        self.deviceKeyInfo = deviceKeyInfo
        self.docType = docType
        self.validityInfo = validityInfo
    }
}

/// The digest algorithms §9.1.2.5 allows.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    public func digest(_ data: Data) -> Data {
        switch self {
        case .sha256: return Data(SHA256.hash(data: data))
        case .sha384: return Data(SHA384.hash(data: data))
        case .sha512: return Data(SHA512.hash(data: data))
        }
    }
}

/// `DeviceKeyInfo = {"deviceKey": DeviceKey, ? "keyAuthorizations": KeyAuthorizations, ? "keyInfo": KeyInfo}`.
public struct DeviceKeyInfo: Codable, Sendable, Equatable {
    public var deviceKey: COSEKey
    public var keyAuthorizations: KeyAuthorizations?
    public var keyInfo: [Int: CBOR]?

    public init(deviceKey: COSEKey, keyAuthorizations: KeyAuthorizations? = nil, keyInfo: [Int: CBOR]? = nil) {
        self.deviceKey = deviceKey
        self.keyAuthorizations = keyAuthorizations
        self.keyInfo = keyInfo
    }
}

/// `KeyAuthorizations = {? "nameSpaces": [+ NameSpace], ? "dataElements": {+ NameSpace => [+ DataElementIdentifier]}}`:
/// which elements the device key may sign itself (§9.1.2.4).
public struct KeyAuthorizations: Codable, Sendable, Equatable {
    public var nameSpaces: [String]?
    public var dataElements: [String: [String]]?

    public init(nameSpaces: [String]? = nil, dataElements: [String: [String]]? = nil) {
        self.nameSpaces = nameSpaces
        self.dataElements = dataElements
    }

    public func allows(namespace: String, element: String) -> Bool {
        if nameSpaces?.contains(namespace) == true { return true }
        return dataElements?[namespace]?.contains(element) == true
    }
}

/// `ValidityInfo = {"signed": tdate, "validFrom": tdate, "validUntil": tdate, ? "expectedUpdate": tdate}`.
public struct ValidityInfo: Codable, Sendable, Equatable {
    public var signed: TDate
    public var validFrom: TDate
    public var validUntil: TDate
    public var expectedUpdate: TDate?

    public init(signed: TDate, validFrom: TDate, validUntil: TDate, expectedUpdate: TDate? = nil) {
        self.signed = signed
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.expectedUpdate = expectedUpdate
    }
}
