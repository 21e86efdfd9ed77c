import Crypto
import Foundation
import TesseraCBOR
import TesseraCOSE

/// `MobileSecurityObject` (§9.1.2.4): what the issuer signs — the digests of every element,
/// the device key, and the validity window.
public struct MobileSecurityObject: Codable, Sendable, Equatable {
    /// `"1.0"` when built here; `MDocVerifier` reports a version other than `1.x` as `unsupportedVersion`.
    public var version: String
    /// "SHA-256", "SHA-384" or "SHA-512" (§9.1.2.5).
    public var digestAlgorithm: String
    /// `ValueDigests = {+ NameSpace => {+ DigestID => Digest}}`.
    public var valueDigests: [String: [Int: Data]]
    /// The holder's device key and what it may sign (§9.1.2.4); DeviceSignature and DeviceMac are checked with it.
    public var deviceKeyInfo: DeviceKeyInfo
    /// The document type the issuer signed; it must match the Document's (§9.3.1).
    public var docType: String
    /// When the MSO was signed and when it is valid (§9.1.2.4); checked at the verification instant.
    public var validityInfo: ValidityInfo

    /// An MSO as the issuer builds it (see `MDocIssuer`).
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

    /// Reads the MSO from its decoded item without Codable (the reader's hot path).
    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        version = try fields.field("version", Read.text)
        digestAlgorithm = try fields.field("digestAlgorithm", Read.text)
        valueDigests = try fields.field("valueDigests") { (i) throws(ReadFailure) in
            try Read.textKeyed(i) { (digests) throws(ReadFailure) in try Read.intKeyed(digests, Read.bytes) }
        }
        deviceKeyInfo = try fields.field("deviceKeyInfo", DeviceKeyInfo.init(reading:))
        docType = try fields.field("docType", Read.text)
        validityInfo = try fields.field("validityInfo", ValidityInfo.init(reading:))
    }
}

/// The digest algorithms §9.1.2.5 allows.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// `"SHA-256"` in the MSO; what `MDocIssuer` uses unless told otherwise.
    case sha256 = "SHA-256"
    /// `"SHA-384"` in the MSO.
    case sha384 = "SHA-384"
    /// `"SHA-512"` in the MSO.
    case sha512 = "SHA-512"

    /// The digest of `data`, e.g. of IssuerSignedItemBytes (the tag-24 item as sent, §9.1.2.5).
    public func digest(_ data: Data) -> Data {
        switch self {
        case .sha256: return Data(SHA256.hash(data: data))
        case .sha384: return Data(SHA384.hash(data: data))
        case .sha512: return Data(SHA512.hash(data: data))
        }
    }

    /// The digest of `24(h'…')` carrying `embedded` (e.g. IssuerSignedItemBytes, §9.1.2.5), without building
    /// that encoding: the tag and byte string heads, then the embedded bytes.
    func digest(tag24Embedding embedded: Data) -> Data {
        func run<H: HashFunction>(_ hasher: inout H) -> Data {
            CBOR.tag24Prefix(byteCount: embedded.count).withUnsafeBytes { hasher.update(bufferPointer: $0) }
            hasher.update(data: embedded)
            return Data(hasher.finalize())
        }
        switch self {
        case .sha256:
            var h = SHA256()
            return run(&h)
        case .sha384:
            var h = SHA384()
            return run(&h)
        case .sha512:
            var h = SHA512()
            return run(&h)
        }
    }
}

/// `DeviceKeyInfo = {"deviceKey": DeviceKey, ? "keyAuthorizations": KeyAuthorizations, ? "keyInfo": KeyInfo}`.
public struct DeviceKeyInfo: Codable, Sendable, Equatable {
    /// `DeviceKey = COSE_Key`: the public key the holder proves possession of (§9.1.2.4).
    public var deviceKey: COSEKey
    /// Which device-signed elements the key may return; none when absent.
    public var keyAuthorizations: KeyAuthorizations?
    /// `KeyInfo = {* int => any}`: kept as received, not interpreted.
    public var keyInfo: [Int: CBOR]?

    /// DeviceKeyInfo for an MSO; without `keyAuthorizations` the device may sign no element itself.
    public init(deviceKey: COSEKey, keyAuthorizations: KeyAuthorizations? = nil, keyInfo: [Int: CBOR]? = nil) {
        self.deviceKey = deviceKey
        self.keyAuthorizations = keyAuthorizations
        self.keyInfo = keyInfo
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        deviceKey = try fields.field("deviceKey", Read.coseKey)
        keyAuthorizations = try fields.optionalField("keyAuthorizations", KeyAuthorizations.init(reading:))
        keyInfo = try fields.optionalField("keyInfo") { (i) throws(ReadFailure) in try Read.intKeyed(i, Read.any) }
    }
}

/// `KeyAuthorizations = {? "nameSpaces": [+ NameSpace], ? "dataElements": {+ NameSpace => [+ DataElementIdentifier]}}`:
/// which elements the device key may sign itself (§9.1.2.4).
public struct KeyAuthorizations: Codable, Sendable, Equatable {
    /// Namespaces whose every element the device key may sign.
    public var nameSpaces: [String]?
    /// Individual elements (namespace → identifiers) the device key may sign.
    public var dataElements: [String: [String]]?

    /// Authorizations for device-signed elements, by whole namespace or by element.
    public init(nameSpaces: [String]? = nil, dataElements: [String: [String]]? = nil) {
        self.nameSpaces = nameSpaces
        self.dataElements = dataElements
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        nameSpaces = try fields.optionalField("nameSpaces") { (i) throws(ReadFailure) in try Read.array(i, Read.text) }
        dataElements = try fields.optionalField("dataElements") { (i) throws(ReadFailure) in
            try Read.textKeyed(i) { (elements) throws(ReadFailure) in try Read.array(elements, Read.text) }
        }
    }

    /// True if `element` of `namespace` is authorized by a whole namespace or by name.
    public func allows(namespace: String, element: String) -> Bool {
        if nameSpaces?.contains(namespace) == true { return true }
        return dataElements?[namespace]?.contains(element) == true
    }
}

/// `ValidityInfo = {"signed": tdate, "validFrom": tdate, "validUntil": tdate, ? "expectedUpdate": tdate}`.
public struct ValidityInfo: Codable, Sendable, Equatable {
    /// When the MSO was signed; it must fall within the document signer certificate's validity (§9.3.1).
    public var signed: TDate
    /// Start of the MSO's validity.
    public var validFrom: TDate
    /// End of the MSO's validity.
    public var validUntil: TDate
    /// When the issuer expects to re-sign the MSO; informative.
    public var expectedUpdate: TDate?

    /// A validity window; `validFrom` must be before `validUntil` for `MDocIssuer` to issue.
    public init(signed: TDate, validFrom: TDate, validUntil: TDate, expectedUpdate: TDate? = nil) {
        self.signed = signed
        self.validFrom = validFrom
        self.validUntil = validUntil
        self.expectedUpdate = expectedUpdate
    }

    init(reading item: CBOR) throws(ReadFailure) {
        let fields = try MapReader(item)
        signed = try fields.field("signed", Read.tdate)
        validFrom = try fields.field("validFrom", Read.tdate)
        validUntil = try fields.field("validUntil", Read.tdate)
        expectedUpdate = try fields.optionalField("expectedUpdate", Read.tdate)
    }
}
