import Foundation
import SwiftASN1
import X509

// Rules about one certificate of the path (the leaf or the anchor), parameterised by the Annex B profile they
// belong to so that each violation cites its clause.

/// basicConstraints: a CA (optionally with a fixed pathLenConstraint) or an end entity.
struct BasicConstraintsRule: AnnexBRule {
    enum Requirement: Sendable, Hashable {
        /// cA = TRUE, critical; `pathLength` fixes pathLenConstraint when non-nil.
        case certificateAuthority(pathLength: Int?)
        /// Absent, or cA = FALSE.
        case endEntity
    }

    let position: PathPosition
    let profile: CertificateProfile
    let requirement: Requirement

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.basicConstraints] }

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        func violation(_ problem: TrustError.BasicConstraintsProblem) -> TrustError {
            .basicConstraintsViolation(certificate: index, profile: profile, problem: problem)
        }
        let lookup = ExtensionLookup(path[index], .X509ExtensionID.basicConstraints, decode: BasicConstraints.init)
        switch (requirement, lookup) {
        case (_, .malformed(let reason)):
            return [.malformedExtension(certificate: index, extension: "basicConstraints", reason: reason)]
        case (.endEntity, .present(.isCertificateAuthority, _)):
            return [violation(.markedCA)]
        case (.endEntity, _):
            return []
        case (.certificateAuthority, .absent):
            return [violation(.missing)]
        case (.certificateAuthority, .present(.notCertificateAuthority, _)):
            return [violation(.notCA)]
        case (.certificateAuthority(let expected), .present(.isCertificateAuthority(let found), let critical)):
            var problems: [TrustError] = []
            if !critical { problems.append(violation(.notCritical)) }
            if let expected {
                switch found {
                case .none: problems.append(violation(.pathLengthMissing(expected: expected)))
                case .some(let found) where found != expected:
                    problems.append(violation(.pathLengthMismatch(expected: expected, found: found)))
                case .some: break
                }
            }
            return problems
        }
    }
}

/// keyUsage: present, critical, holding the required bits (and nothing else when `exact`).
struct KeyUsageRule: AnnexBRule {
    let position: PathPosition
    let profile: CertificateProfile
    let required: KeyUsage
    let exact: Bool

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.keyUsage] }

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        // Rendered only for a violation: a conforming certificate should cost no text.
        var expected: String { exact ? KeyUsageNames.of(required) : "to include \(KeyUsageNames.of(required))" }
        switch ExtensionLookup(path[index], .X509ExtensionID.keyUsage, decode: KeyUsage.init) {
        case .absent:
            return [.keyUsageViolation(certificate: index, profile: profile, expected: expected, found: nil)]
        case .malformed(let reason):
            return [.malformedExtension(certificate: index, extension: "keyUsage", reason: reason)]
        case .present(let usage, let critical):
            var found: [TrustError] = []
            if !critical {
                found.append(
                    .extensionCriticality(certificate: index, profile: profile, extension: "keyUsage", mustBeCritical: true)
                )
            }
            let matches = exact ? usage == required : KeyUsageNames.contains(usage, required)
            if !matches {
                found.append(
                    .keyUsageViolation(
                        certificate: index,
                        profile: profile,
                        expected: expected,
                        found: KeyUsageNames.of(usage)
                    )
                )
            }
            return found
        }
    }
}

/// extKeyUsage: present, critical, and exactly the one ISO/IEC 18013-5 purpose.
struct ExtendedKeyUsageRule: AnnexBRule {
    let position: PathPosition
    let profile: CertificateProfile
    let purpose: ASN1ObjectIdentifier
    let purposeName: String

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [.X509ExtensionID.extendedKeyUsage] }

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        switch ExtensionLookup(path[index], .X509ExtensionID.extendedKeyUsage, decode: ExtendedKeyUsage.init) {
        case .absent:
            return [.missingExtendedKeyUsage(certificate: index, expected: purposeName)]
        case .malformed(let reason):
            return [.malformedExtension(certificate: index, extension: "extKeyUsage", reason: reason)]
        case .present(let usages, let critical):
            var found: [TrustError] = []
            if !critical {
                found.append(
                    .extensionCriticality(certificate: index, profile: profile, extension: "extKeyUsage", mustBeCritical: true)
                )
            }
            let oids = usages.map { ASN1ObjectIdentifier($0) }
            if oids != [purpose] {
                found.append(
                    .extendedKeyUsageMismatch(certificate: index, expected: purposeName, found: oids.map(\.description))
                )
            }
            return found
        }
    }
}

/// subjectKeyIdentifier present and non-critical; optionally authorityKeyIdentifier present, non-critical and equal
/// to the issuer's subjectKeyIdentifier.
struct KeyIdentifierRule: AnnexBRule {
    let position: PathPosition
    let profile: CertificateProfile
    let requireAuthorityKeyIdentifier: Bool

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        let certificate = path[index]
        var found: [TrustError] = []
        switch ExtensionLookup(certificate, .X509ExtensionID.subjectKeyIdentifier, decode: SubjectKeyIdentifier.init) {
        case .absent:
            found.append(.missingSubjectKeyIdentifier(certificate: index, profile: profile))
        case .malformed(let reason):
            found.append(.malformedExtension(certificate: index, extension: "subjectKeyIdentifier", reason: reason))
        case .present(_, let critical):
            if critical {
                found.append(
                    .extensionCriticality(
                        certificate: index,
                        profile: profile,
                        extension: "subjectKeyIdentifier",
                        mustBeCritical: false
                    )
                )
            }
        }
        guard requireAuthorityKeyIdentifier else { return found }
        switch ExtensionLookup(certificate, .X509ExtensionID.authorityKeyIdentifier, decode: AuthorityKeyIdentifier.init) {
        case .absent:
            found.append(.missingAuthorityKeyIdentifier(certificate: index, profile: profile))
        case .malformed(let reason):
            found.append(.malformedExtension(certificate: index, extension: "authorityKeyIdentifier", reason: reason))
        case .present(let aki, let critical):
            if critical {
                found.append(
                    .extensionCriticality(
                        certificate: index,
                        profile: profile,
                        extension: "authorityKeyIdentifier",
                        mustBeCritical: false
                    )
                )
            }
            guard let keyIdentifier = aki.keyIdentifier else {
                found.append(.missingAuthorityKeyIdentifier(certificate: index, profile: profile))
                break
            }
            if let issuer = path.issuer(of: index) {
                let issuerSKI = try? issuer.extensions.subjectKeyIdentifier
                if issuerSKI?.keyIdentifier != keyIdentifier {
                    found.append(.authorityKeyIdentifierMismatch(certificate: index, profile: profile))
                }
            }
        }
        return found
    }
}

/// issuerAltName: present, non-critical, with an e-mail address or URI (`required`), or present whenever the
/// issuer has one (`whenIssuerHasOne`).
struct IssuerAlternativeNameRule: AnnexBRule {
    enum Requirement: Sendable, Hashable {
        case required
        case whenIssuerHasOne
    }

    let position: PathPosition
    let profile: CertificateProfile
    let requirement: Requirement

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        let lookup = ExtensionLookup(
            path[index],
            .AdditionalExtensionID.issuerAlternativeName,
            decode: IssuerAlternativeName.init
        )
        switch (requirement, lookup) {
        case (_, .malformed(let reason)):
            return [.malformedExtension(certificate: index, extension: "issuerAltName", reason: reason)]
        case (.required, .absent):
            return [.missingIssuerAlternativeName(certificate: index, profile: profile)]
        case (.required, .present(let name, let critical)):
            var found: [TrustError] = []
            if critical {
                found.append(
                    .extensionCriticality(certificate: index, profile: profile, extension: "issuerAltName", mustBeCritical: false)
                )
            }
            if !name.hasEmailOrURI {
                found.append(.invalidIssuerAlternativeName(certificate: index, profile: profile))
            }
            return found
        case (.whenIssuerHasOne, .absent):
            let issuerHasOne = path.issuer(of: index)?.extensions[oid: .AdditionalExtensionID.issuerAlternativeName] != nil
            return issuerHasOne ? [.missingIssuerAlternativeName(certificate: index, profile: profile)] : []
        case (.whenIssuerHasOne, .present):
            return []
        }
    }
}

/// cRLDistributionPoints present with a URI (only with `AnnexBOptions.requireCRLDistributionPoints`).
struct CRLDistributionPointsRule: AnnexBRule {
    let position: PathPosition
    let profile: CertificateProfile

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        switch ExtensionLookup(path[index], .AdditionalExtensionID.crlDistributionPoints, decode: CRLDistributionPoints.init) {
        case .absent:
            return [.missingCRLDistributionPoints(certificate: index, profile: profile)]
        case .malformed(let reason):
            return [.malformedExtension(certificate: index, extension: "cRLDistributionPoints", reason: reason)]
        case .present(let points, _):
            return points.hasURI ? [] : [.missingCRLDistributionPoints(certificate: index, profile: profile)]
        }
    }
}

/// Subject has a commonName and (when asked) exactly one upper-case ISO 3166-1 alpha-2 countryName.
struct SubjectNameRule: AnnexBRule {
    let position: PathPosition
    let profile: CertificateProfile
    let requireCountry: Bool

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        let certificate = path[index]
        var found: [TrustError] = []
        if !certificate.hasSubjectAttribute(.RDNAttributeType.commonName) {
            found.append(.missingCommonName(certificate: index, profile: profile))
        }
        if requireCountry {
            let countries = certificate.subjectValues(.RDNAttributeType.countryName)
            if countries.count != 1 {
                found.append(.missingCountry(certificate: index, profile: profile))
            } else if let country = countries.first, !Self.isCountryCode(country) {
                found.append(.invalidCountryCode(certificate: index, value: country))
            }
        }
        return found
    }

    static func isCountryCode(_ value: String) -> Bool {
        value.utf8.count == 2 && value.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}

/// B.1.3: the Document Signer's countryName equals the IACA's; when the IACA has a stateOrProvinceName, the
/// Document Signer has the same.
struct CountryConsistencyRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        guard let anchor = path.anchor, let leaf = path.leaf, path.count > 1 else { return [] }
        var found: [TrustError] = []
        let iacaCountries = anchor.subjectValues(.RDNAttributeType.countryName)
        let dsCountries = leaf.subjectValues(.RDNAttributeType.countryName)
        // A missing or repeated countryName is reported by SubjectNameRule.
        if iacaCountries.count == 1, dsCountries.count == 1, let iaca = iacaCountries.first, let ds = dsCountries.first,
            iaca != ds
        {
            found.append(.countryMismatch(iaca: iaca, ds: ds))
        }
        let iacaStates = anchor.subjectValues(.RDNAttributeType.stateOrProvinceName)
        let dsStates = leaf.subjectValues(.RDNAttributeType.stateOrProvinceName)
        if !iacaStates.isEmpty && iacaStates != dsStates {
            found.append(.stateOrProvinceMismatch(iaca: iacaStates.first, ds: dsStates.first))
        }
        return found
    }
}

/// B.1.2: the IACA root is self-signed (subject = issuer, signature verifies with its own key).
struct SelfSignedRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = path.anchorIndex else { return [] }
        let anchor = path[index]
        guard anchor.isSelfIssued else { return [.notSelfSigned(certificate: index)] }
        return anchor.isSigned(by: anchor) ? [] : [.signatureInvalid(certificate: index)]
    }
}

/// B.1.3: the leaf's validity lies inside the anchor's validity.
struct ValidityNestingRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        guard let anchor = path.anchor, let leaf = path.leaf, path.count > 1 else { return [] }
        let inside = leaf.notValidBefore >= anchor.notValidBefore && leaf.notValidAfter <= anchor.notValidAfter
        return inside ? [] : [.validityOutsideIssuer(certificate: 0)]
    }
}

/// The validity period is at most `maximumDays` long.
struct MaximumValidityRule: AnnexBRule {
    let position: PathPosition
    let profile: CertificateProfile
    let maximumDays: Int

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = position.index(in: path) else { return [] }
        let days = path[index].validityDays
        return days > maximumDays
            ? [.validityPeriodTooLong(certificate: index, profile: profile, days: days, maximumDays: maximumDays)] : []
    }
}

/// An upper-case ISO 3166-1 alpha-2 country code (Annex B), for the test PKI's request checks.
package func isISO3166CountryCode(_ value: String) -> Bool { SubjectNameRule.isCountryCode(value) }
