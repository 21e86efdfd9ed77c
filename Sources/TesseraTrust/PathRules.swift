import Foundation
import SwiftASN1
import X509

// Rules over the whole certification path (RFC 5280 §6.1, ISO/IEC 18013-5:2021 B.1.1). Every certificate and every
// link is checked: one failing certificate fails the chain.

/// Each certificate is valid at the validation instant, and its notBefore is not after its notAfter.
struct ValidityAtInstantRule: AnnexBRule {
    let validationTime: Date

    func violations(in path: CertificationPath) -> [TrustError] {
        path.enumerated().compactMap { index, certificate in
            if certificate.notValidBefore > certificate.notValidAfter {
                return .invalidValidityPeriod(certificate: index)
            }
            if validationTime < certificate.notValidBefore {
                return .notYetValid(certificate: index, notBefore: certificate.notValidBefore)
            }
            if validationTime > certificate.notValidAfter {
                return .expired(certificate: index, notAfter: certificate.notValidAfter)
            }
            return nil
        }
    }
}

/// Each certificate names the next one as its issuer and is signed by the next one's key.
struct IssuerLinkRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        var found: [TrustError] = []
        for index in path.indices.dropLast() {
            let certificate = path[index]
            let issuer = path[index + 1]
            if certificate.issuer != issuer.subject {
                found.append(.issuerNameMismatch(certificate: index))
            }
            if !certificate.isSigned(by: issuer) {
                found.append(.signatureInvalid(certificate: index))
            }
        }
        return found
    }
}

/// Intermediate certificates (between the leaf and the anchor) are CAs allowed to sign certificates.
/// The anchor's own CA requirements belong to its profile (`IACARootProfile`, `ReaderRootProfile`).
struct IntermediateAuthorityRule: AnnexBRule {
    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] {
        [.X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage]
    }

    func violations(in path: CertificationPath) -> [TrustError] {
        let end = path.isAnchored ? path.count - 1 : path.count
        guard end > 1 else { return [] }
        var found: [TrustError] = []
        for index in 1..<end {
            let certificate = path[index]
            switch ExtensionLookup(certificate, .X509ExtensionID.basicConstraints, decode: BasicConstraints.init) {
            case .absent:
                found.append(.basicConstraintsViolation(certificate: index, profile: .certificationPath, problem: .missing))
            case .present(.notCertificateAuthority, _):
                found.append(.basicConstraintsViolation(certificate: index, profile: .certificationPath, problem: .notCA))
            case .present(.isCertificateAuthority, _):
                break
            case .malformed(let reason):
                found.append(.malformedExtension(certificate: index, extension: "basicConstraints", reason: reason))
            }
            switch ExtensionLookup(certificate, .X509ExtensionID.keyUsage, decode: KeyUsage.init) {
            case .present(let usage, _) where !usage.keyCertSign:
                found.append(
                    .keyUsageViolation(
                        certificate: index,
                        profile: .certificationPath,
                        expected: "to include keyCertSign",
                        found: KeyUsageNames.of(usage)
                    )
                )
            case .malformed(let reason):
                found.append(.malformedExtension(certificate: index, extension: "keyUsage", reason: reason))
            case .absent, .present:
                break
            }
        }
        return found
    }
}

/// No CA has more non-self-issued intermediate certificates below it than its pathLenConstraint allows.
struct PathLengthRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        guard path.count > 1 else { return [] }
        var found: [TrustError] = []
        for index in 1..<path.count {
            guard
                case .present(.isCertificateAuthority(maxPathLength: .some(let maximum)), _) = ExtensionLookup(
                    path[index],
                    .X509ExtensionID.basicConstraints,
                    decode: BasicConstraints.init
                )
            else { continue }
            let intermediates = path[1..<index].filter { !$0.isSelfIssued }.count
            if intermediates > maximum {
                found.append(.pathLengthExceeded(certificate: index, maximum: maximum, found: intermediates))
            }
        }
        return found
    }
}

/// B.1.1 forbids some extensions outright; critical extensions nobody enforces reject the certificate (RFC 5280
/// §4.2).
struct ExtensionHygieneRule: AnnexBRule {
    static let prohibited: [ASN1ObjectIdentifier] = [
        .AdditionalExtensionID.policyMappings,
        .X509ExtensionID.nameConstraints,
        .AdditionalExtensionID.policyConstraints,
        .AdditionalExtensionID.inhibitAnyPolicy,
        .AdditionalExtensionID.freshestCRL,
    ]
    static let handledCritical: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints,
        .X509ExtensionID.keyUsage,
        .X509ExtensionID.extendedKeyUsage,
    ]

    func violations(in path: CertificationPath) -> [TrustError] {
        var found: [TrustError] = []
        for (index, certificate) in path.enumerated() {
            for ext in certificate.extensions {
                if Self.prohibited.contains(ext.oid) {
                    found.append(.prohibitedExtension(certificate: index, extension: ExtensionName.of(ext.oid)))
                } else if ext.critical && !Self.handledCritical.contains(ext.oid) {
                    found.append(.unhandledCriticalExtension(certificate: index, oid: ExtensionName.of(ext.oid)))
                }
            }
        }
        return found
    }
}

/// X.509 v3, with a positive serial number of at most 20 octets (RFC 5280 §4.1.2.2, Annex B tables).
struct VersionAndSerialRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        var found: [TrustError] = []
        for (index, certificate) in path.enumerated() {
            if certificate.version != .v3 {
                found.append(.unsupportedVersion(certificate: index))
            }
            // RFC 5280 §4.1.2.2: a positive INTEGER of at most 20 octets. swift-certificates keeps the magnitude
            // (swift-asn1 reads it unsigned: a negative serial does not parse, and the 0x00 that DER puts before a
            // top bit set is dropped), so the encoded INTEGER is one octet longer when that bit is set.
            let magnitude = certificate.serialNumber.bytes.drop { $0 == 0 }
            let octets = magnitude.count + ((magnitude.first ?? 0) & 0x80 != 0 ? 1 : 0)
            if magnitude.isEmpty || octets > 20 {
                found.append(.invalidSerialNumber(certificate: index))
            }
        }
        return found
    }
}

/// The checks every link of every chain gets, whatever the profile: validity at the injected instant, name
/// chaining, signatures, intermediate CA flags, path length, forbidden and unhandled critical extensions, version
/// and serial number.
///
/// Use it as a swift-certificates `VerifierPolicy`, or call `violations(in:)` to list every failure.
public struct CertificationPathPolicy: AnnexBRule {
    private let rules: RuleSet

    /// - Parameter validationTime: the instant the path must be valid at (never the wall clock).
    public init(validationTime: Date) {
        rules = RuleSet([
            IssuerLinkRule(),
            ValidityAtInstantRule(validationTime: validationTime),
            IntermediateAuthorityRule(),
            PathLengthRule(),
            ExtensionHygieneRule(),
            VersionAndSerialRule(),
        ])
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] {
        rules.violations(in: path)
    }
}
