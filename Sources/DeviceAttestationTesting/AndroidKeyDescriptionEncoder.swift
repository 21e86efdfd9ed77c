import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1

/// Writes a KeyDescription (the Android key attestation schema, version 300 / KeyMint 3) in DER, the way a
/// TEE (or StrongBox) KeyMint does for a P-256 signing key: every AuthorizationList field `[tag] EXPLICIT`, tags ascending.
struct AndroidKeyDescriptionEncoder {
    var challenge: Data
    var application: AndroidApplication
    var creation: Date
    /// RootOfTrust.verifiedBootKey and verifiedBootHash (32 bytes each).
    var verifiedBootKey: Data
    var verifiedBootHash: Data
    /// Where the key lives (attestationSecurityLevel and keyMintSecurityLevel alike).
    var securityLevel: AndroidSecurityLevel = .trustedEnvironment

    static let attestationVersion = 300
    static let osVersion = 150_000  // Android 15

    func encode() throws -> [UInt8] {
        let (month, day) = Self.patchLevels(creation)
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(Self.attestationVersion)
            try securityLevel.rawValue.serialize(into: &coder, withIdentifier: .enumerated)
            try coder.serialize(Self.attestationVersion)  // keyMintVersion
            try securityLevel.rawValue.serialize(into: &coder, withIdentifier: .enumerated)
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(challenge)))
            try coder.serialize(ASN1OctetString(contentBytes: []))  // uniqueId
            try coder.appendConstructedNode(identifier: .sequence) { software in
                try software.serialize(Int(creation.timeIntervalSince1970 * 1000), tag: 701)
                try software.serialize(ASN1OctetString(contentBytes: ArraySlice(try applicationID())), tag: 709)
            }
            try coder.appendConstructedNode(identifier: .sequence) { hardware in
                try hardware.serialize(explicitlyTaggedWithTagNumber: 1, tagClass: .contextSpecific) {
                    try $0.serializeSetOf([2])  // purpose: SIGN
                }
                try hardware.serialize(3, tag: 2)  // algorithm: EC
                try hardware.serialize(256, tag: 3)  // keySize
                try hardware.serialize(explicitlyTaggedWithTagNumber: 5, tagClass: .contextSpecific) {
                    try $0.serializeSetOf([4])  // digest: SHA-2 256
                }
                try hardware.serialize(1, tag: 10)  // ecCurve: P-256
                try hardware.serialize(ASN1Null(), tag: 503)  // noAuthRequired
                try hardware.serialize(0, tag: 702)  // origin: GENERATED
                try hardware.serialize(explicitlyTaggedWithTagNumber: 704, tagClass: .contextSpecific) {
                    try rootOfTrust(&$0)
                }
                try hardware.serialize(Self.osVersion, tag: 705)
                try hardware.serialize(month, tag: 706)  // osPatchLevel YYYYMM
                try hardware.serialize(day, tag: 718)  // vendorPatchLevel YYYYMMDD
                try hardware.serialize(day, tag: 719)  // bootPatchLevel YYYYMMDD
            }
        }
        return coder.serializedBytes
    }

    /// RootOfTrust of a locked device that booted verified software.
    private func rootOfTrust(_ coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(verifiedBootKey)))
            try coder.serialize(true)  // deviceLocked, DER 0xFF
            try AndroidVerifiedBootState.verified.rawValue.serialize(into: &coder, withIdentifier: .enumerated)
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(verifiedBootHash)))
        }
    }

    /// AttestationApplicationId: one package (version 1) and the app's signing digests, a DER SET OF (sorted).
    private func applicationID() throws -> [UInt8] {
        var coder = DER.Serializer()
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.appendConstructedNode(identifier: .set) { packages in
                try packages.appendConstructedNode(identifier: .sequence) { info in
                    try info.serialize(ASN1OctetString(contentBytes: ArraySlice(Data(application.packageName.utf8))))
                    try info.serialize(1)
                }
            }
            try coder.serializeSetOf(application.signingCertificateDigests.map { ASN1OctetString(contentBytes: ArraySlice($0)) })
        }
        return coder.serializedBytes
    }

    /// osPatchLevel (YYYYMM) and vendor/boot patch levels (YYYYMMDD, the first of the month) for `date`, in UTC.
    private static func patchLevels(_ date: Date) -> (Int, Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.year, .month], from: date)
        let month = (parts.year ?? 1970) * 100 + (parts.month ?? 1)
        return (month, month * 100 + 1)
    }
}

extension DER.Serializer {
    /// `[tag] EXPLICIT value` of an AuthorizationList.
    fileprivate mutating func serialize(_ value: some DERSerializable, tag: UInt) throws {
        try serialize(value, explicitlyTaggedWithTagNumber: tag, tagClass: .contextSpecific)
    }
}
