import Foundation

/// The facts of an Android key attestation: what the leaf's KeyDescription claims about the key, the app and the
/// device. Read when the extension could be decoded, whether or not the chain and policy checks passed.
public struct AndroidKeyAttestation: Sendable {
    /// The attested key's SubjectPublicKeyInfo (DER), whatever its algorithm (EC, RSA, ML-DSA …).
    public let leafPublicKeySPKI: Data
    public let attestationVersion: Int
    public let attestationSecurityLevel: AndroidSecurityLevel
    public let keyMintVersion: Int
    public let keyMintSecurityLevel: AndroidSecurityLevel
    public let attestationChallenge: Data
    public let uniqueID: Data
    /// From attestationApplicationId (tag 709): the packages sharing the app's UID, and its signing digests.
    public let packageNames: [String]
    public let signingCertificateDigests: [Data]
    /// From the hardware-enforced RootOfTrust (tag 704); nil when there is none.
    public let deviceLocked: Bool?
    public let verifiedBootState: AndroidVerifiedBootState?
    public let verifiedBootKey: Data?
    public let verifiedBootHash: Data?
    /// Hardware-enforced values, or the software-enforced ones when the hardware list has none.
    public let osVersion: Int?
    public let osPatchLevel: Int?
    public let vendorPatchLevel: Int?
    public let bootPatchLevel: Int?
    /// creationDateTime (tag 701), milliseconds since 1970.
    public let creationDateTime: Int?
    /// Device identifiers the device chose to attest (brand, device, product, manufacturer, model); IMEI, MEID
    /// and serial number are not copied out.
    public let deviceIDs: AndroidAttestedDeviceIDs

    init(leafPublicKeySPKI: Data, description: AndroidKeyDescription) {
        let hardware = description.hardwareEnforced
        let software = description.softwareEnforced
        let application = software.attestationApplicationID ?? hardware.attestationApplicationID
        self.leafPublicKeySPKI = leafPublicKeySPKI
        attestationVersion = description.attestationVersion
        attestationSecurityLevel = description.attestationSecurityLevel
        keyMintVersion = description.keyMintVersion
        keyMintSecurityLevel = description.keyMintSecurityLevel
        attestationChallenge = description.attestationChallenge
        uniqueID = description.uniqueID
        packageNames = application?.packages.map(\.name) ?? []
        signingCertificateDigests = application?.signatureDigests ?? []
        deviceLocked = hardware.rootOfTrust?.deviceLocked
        verifiedBootState = hardware.rootOfTrust?.verifiedBootState
        verifiedBootKey = hardware.rootOfTrust?.verifiedBootKey
        verifiedBootHash = hardware.rootOfTrust?.verifiedBootHash
        osVersion = hardware.osVersion ?? software.osVersion
        osPatchLevel = hardware.osPatchLevel ?? software.osPatchLevel
        vendorPatchLevel = hardware.vendorPatchLevel ?? software.vendorPatchLevel
        bootPatchLevel = hardware.bootPatchLevel ?? software.bootPatchLevel
        creationDateTime = software.creationDateTime ?? hardware.creationDateTime
        deviceIDs = AndroidAttestedDeviceIDs(hardware.attestationIDs)
    }
}

/// Device identifiers from the hardware-enforced list (attestationIdBrand … attestationIdModel), as UTF-8 text.
public struct AndroidAttestedDeviceIDs: Sendable, Hashable {
    public let brand: String?
    public let device: String?
    public let product: String?
    public let manufacturer: String?
    public let model: String?

    init(_ ids: [UInt: Data]) {
        typealias Tag = AndroidAuthorizationList.Tag
        func text(_ tag: UInt) -> String? { ids[tag].flatMap { String(data: $0, encoding: .utf8) } }
        brand = text(Tag.attestationIDBrand)
        device = text(Tag.attestationIDDevice)
        product = text(Tag.attestationIDProduct)
        manufacturer = text(Tag.attestationIDManufacturer)
        model = text(Tag.attestationIDModel)
    }
}
