import Foundation
import SwiftASN1

/// The key attestation extension (OID 1.3.6.1.4.1.11129.2.1.17) as the Android key attestation schema defines it
/// (source.android.com, "Key and ID attestation", KeyDescription, version 1–400+):
///
///     KeyDescription ::= SEQUENCE {
///         attestationVersion INTEGER, attestationSecurityLevel SecurityLevel,
///         keyMintVersion INTEGER, keyMintSecurityLevel SecurityLevel,
///         attestationChallenge OCTET_STRING, uniqueId OCTET_STRING,
///         softwareEnforced AuthorizationList, hardwareEnforced AuthorizationList }
package struct AndroidKeyDescription: Sendable {
    package static let oid: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17]

    var attestationVersion: Int
    var attestationSecurityLevel: AndroidSecurityLevel
    var keyMintVersion: Int
    var keyMintSecurityLevel: AndroidSecurityLevel
    var attestationChallenge: Data
    var uniqueID: Data
    var softwareEnforced: AndroidAuthorizationList
    var hardwareEnforced: AndroidAuthorizationList
}

/// The AuthorizationList fields this verifier reads. Each field is `[tag] EXPLICIT`; other tags are checked to be
/// well-formed TLVs and skipped.
struct AndroidAuthorizationList: Sendable {
    /// The tags in the order received (DER requires them ascending).
    var tags: [UInt] = []
    var rootOfTrust: AndroidRootOfTrust?
    var attestationApplicationID: AndroidAttestationApplicationID?
    var creationDateTime: Int?
    var osVersion: Int?
    var osPatchLevel: Int?
    var vendorPatchLevel: Int?
    var bootPatchLevel: Int?
    /// attestationIdBrand … attestationIdModel (tags 710–717), by tag.
    var attestationIDs: [UInt: Data] = [:]

    var tagsAscending: Bool { zip(tags, tags.dropFirst()).allSatisfy { $0 < $1 } }

    /// Tag numbers of the schema.
    enum Tag {
        static let creationDateTime: UInt = 701
        static let rootOfTrust: UInt = 704
        static let osVersion: UInt = 705
        static let osPatchLevel: UInt = 706
        static let attestationApplicationID: UInt = 709
        static let attestationIDBrand: UInt = 710
        static let attestationIDDevice: UInt = 711
        static let attestationIDProduct: UInt = 712
        static let attestationIDManufacturer: UInt = 716
        static let attestationIDModel: UInt = 717
        static let vendorPatchLevel: UInt = 718
        static let bootPatchLevel: UInt = 719
        /// Tags whose value is NULL (a flag): rollbackResistance, earlyBootOnly, noAuthRequired,
        /// allowWhileOnBody, trustedUserPresenceRequired, trustedConfirmationRequired, unlockedDeviceRequired,
        /// allApplications, rollbackResistant, deviceUniqueAttestation, identityCredentialKey.
        static let flags: Set<UInt> = [303, 305, 503, 506, 507, 508, 509, 600, 703, 720, 721]
    }
}

/// `RootOfTrust ::= SEQUENCE { verifiedBootKey OCTET_STRING, deviceLocked BOOLEAN,
/// verifiedBootState VerifiedBootState, verifiedBootHash OCTET_STRING (version 3 and later) }`.
struct AndroidRootOfTrust: Sendable {
    var verifiedBootKey: Data
    var deviceLocked: Bool
    var verifiedBootState: AndroidVerifiedBootState
    var verifiedBootHash: Data?
}

/// `AttestationApplicationId ::= SEQUENCE { package_infos SET OF AttestationPackageInfo,
/// signature_digests SET OF OCTET_STRING }`, `AttestationPackageInfo ::= SEQUENCE { package_name OCTET_STRING,
/// version INTEGER }`; DER-encoded inside the OCTET STRING of tag 709.
struct AndroidAttestationApplicationID: Sendable {
    var packages: [(name: String, version: Int)]
    var signatureDigests: [Data]
}
