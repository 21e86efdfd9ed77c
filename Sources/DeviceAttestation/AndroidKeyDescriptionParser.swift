import Foundation
import SwiftASN1

/// Decodes a KeyDescription extension value (`AndroidKeyDescription`) with swift-asn1.
///
/// swift-asn1's DER tree parse checks the framing (definite minimal lengths, no trailing bytes, at most 50 levels
/// of nesting) in both modes, and INTEGERs, ENUMERATEDs and OCTET STRINGs are decoded as DER. The two encodings
/// differ only where the policy says: `.strict` decodes BOOLEANs as DER (0x00 / 0xFF), `.lenient` as BER (any
/// non-zero octet is true). Tag order is recorded, not enforced, here; the verifier decides.
struct AndroidKeyDescriptionParser {
    let encoding: AndroidAttestationPolicy.Encoding

    func parse(_ value: Data) throws(AttestationParseError) -> AndroidKeyDescription {
        guard value.count <= AttestationLimits.maxKeyDescriptionBytes else {
            throw AttestationParseError("KeyDescription larger than \(AttestationLimits.maxKeyDescriptionBytes) bytes")
        }
        do {
            var fields = try DERNodes.sequence(try DER.parse(Array(value)), "KeyDescription")
            let description = AndroidKeyDescription(
                attestationVersion: try Int(derEncoded: try fields.required("attestationVersion")),
                attestationSecurityLevel: try securityLevel(try fields.required("attestationSecurityLevel")),
                keyMintVersion: try Int(derEncoded: try fields.required("keyMintVersion")),
                keyMintSecurityLevel: try securityLevel(try fields.required("keyMintSecurityLevel")),
                attestationChallenge: try octets(try fields.required("attestationChallenge")),
                uniqueID: try octets(try fields.required("uniqueId")),
                softwareEnforced: try authorizationList(try fields.required("softwareEnforced"), "softwareEnforced"),
                hardwareEnforced: try authorizationList(try fields.required("hardwareEnforced"), "hardwareEnforced"))
            try fields.end("KeyDescription")
            return description
        } catch let error as AttestationParseError {
            throw error
        } catch {
            throw AttestationParseError("KeyDescription is not DER of the schema: \(error)")
        }
    }

    private func authorizationList(_ node: ASN1Node, _ name: String) throws -> AndroidAuthorizationList {
        typealias Tag = AndroidAuthorizationList.Tag
        var entries = try DERNodes.sequence(node, name)
        var list = AndroidAuthorizationList()
        while let entry = entries.next() {
            let tag = entry.identifier.tagNumber
            guard entry.identifier.tagClass == .contextSpecific else {
                throw AttestationParseError("\(name) holds a field that is not [tag] EXPLICIT")
            }
            guard !list.tags.contains(tag) else { throw AttestationParseError("\(name) has tag \(tag) twice") }
            guard list.tags.count < AttestationLimits.maxAuthorizationListEntries else {
                throw AttestationParseError("\(name) has more than \(AttestationLimits.maxAuthorizationListEntries) fields")
            }
            list.tags.append(tag)
            var explicit = try DERNodes.constructed(entry, "\(name) [\(tag)]")
            let inner = try explicit.required("\(name) [\(tag)] value")
            try explicit.end("\(name) [\(tag)]")
            switch tag {
            case Tag.rootOfTrust: list.rootOfTrust = try rootOfTrust(inner)
            case Tag.attestationApplicationID: list.attestationApplicationID = try applicationID(try octets(inner))
            case Tag.creationDateTime: list.creationDateTime = try Int(derEncoded: inner)
            case Tag.osVersion: list.osVersion = try Int(derEncoded: inner)
            case Tag.osPatchLevel: list.osPatchLevel = try Int(derEncoded: inner)
            case Tag.vendorPatchLevel: list.vendorPatchLevel = try Int(derEncoded: inner)
            case Tag.bootPatchLevel: list.bootPatchLevel = try Int(derEncoded: inner)
            case Tag.attestationIDBrand...Tag.attestationIDModel: list.attestationIDs[tag] = try octets(inner)
            case _ where Tag.flags.contains(tag): _ = try ASN1Null(derEncoded: inner)
            default: break  // a field this verifier does not read; DER.parse has checked its framing
            }
        }
        return list
    }

    private func rootOfTrust(_ node: ASN1Node) throws -> AndroidRootOfTrust {
        var fields = try DERNodes.sequence(node, "RootOfTrust")
        let key = try octets(try fields.required("verifiedBootKey"))
        let locked = try boolean(try fields.required("deviceLocked"), "RootOfTrust.deviceLocked")
        let stateValue = try Int(derEncoded: try fields.required("verifiedBootState"), withIdentifier: .enumerated)
        guard let state = AndroidVerifiedBootState(rawValue: stateValue) else {
            throw AttestationParseError("RootOfTrust.verifiedBootState \(stateValue) is not in the schema")
        }
        let hash = try fields.next().map { try octets($0) }
        try fields.end("RootOfTrust")
        return AndroidRootOfTrust(verifiedBootKey: key, deviceLocked: locked, verifiedBootState: state, verifiedBootHash: hash)
    }

    private func applicationID(_ value: Data) throws -> AndroidAttestationApplicationID {
        var fields = try DERNodes.sequence(try DER.parse(Array(value)), "AttestationApplicationId")
        var packageNodes = try DERNodes.set(try fields.required("package_infos"), "package_infos")
        var digestNodes = try DERNodes.set(try fields.required("signature_digests"), "signature_digests")
        try fields.end("AttestationApplicationId")
        var packages: [(name: String, version: Int)] = []
        while let node = packageNodes.next() {
            var info = try DERNodes.sequence(node, "AttestationPackageInfo")
            let nameBytes = try octets(try info.required("package_name"))
            let version = try Int(derEncoded: try info.required("version"))
            try info.end("AttestationPackageInfo")
            guard let name = String(data: nameBytes, encoding: .utf8) else {
                throw AttestationParseError("AttestationPackageInfo.package_name is not UTF-8")
            }
            packages.append((name, version))
        }
        var digests: [Data] = []
        while let node = digestNodes.next() { digests.append(try octets(node)) }
        return AndroidAttestationApplicationID(packages: packages, signatureDigests: digests)
    }

    private func securityLevel(_ node: ASN1Node) throws -> AndroidSecurityLevel {
        let value = try Int(derEncoded: node, withIdentifier: .enumerated)
        guard let level = AndroidSecurityLevel(rawValue: value) else {
            throw AttestationParseError("SecurityLevel \(value) is not in the schema")
        }
        return level
    }

    private func octets(_ node: ASN1Node) throws -> Data { Data(try ASN1OctetString(derEncoded: node).bytes) }

    /// DER (X.690 §11.1) requires 0xFF for TRUE; BER (§8.2.2) accepts any non-zero octet.
    private func boolean(_ node: ASN1Node, _ name: String) throws -> Bool {
        switch encoding {
        case .strict:
            do { return try Bool(derEncoded: node) } catch {
                throw AttestationParseError("\(name) is not a DER BOOLEAN")
            }
        case .lenient:
            guard node.identifier == .boolean, case .primitive(let content) = node.content, content.count == 1,
                let octet = content.first
            else { throw AttestationParseError("\(name) is not a BOOLEAN") }
            return octet != 0
        }
    }
}
