import Foundation
import SwiftASN1
import X509

/// ISO/IEC 18013-5:2021 B.1.2, the IACA root certificate, checked on the trust anchor of a path: self-signed;
/// basicConstraints cA = TRUE, pathLenConstraint = 0, critical; keyUsage exactly {keyCertSign, cRLSign}, critical;
/// subject with commonName and an ISO 3166-1 alpha-2 countryName; subjectKeyIdentifier; issuerAltName (e-mail or
/// URI); validity of at most 20 years; cRLDistributionPoints with a URI when `AnnexBOptions` asks.
public struct IACARootProfile: AnnexBRule {
    private let rules: AnchorProfileRules

    public init(options: AnnexBOptions = .default) {
        var rules: [any AnnexBRule] = [
            SelfSignedRule(),
            BasicConstraintsRule(position: .anchor, profile: .iacaRoot, requirement: .certificateAuthority(pathLength: 0)),
            KeyUsageRule(position: .anchor, profile: .iacaRoot, required: KeyUsage(keyCertSign: true, cRLSign: true), exact: true),
            SubjectNameRule(position: .anchor, profile: .iacaRoot, requireCountry: true),
            KeyIdentifierRule(position: .anchor, profile: .iacaRoot, requireAuthorityKeyIdentifier: false),
            IssuerAlternativeNameRule(position: .anchor, profile: .iacaRoot, requirement: .required),
        ]
        if options.enforceMaximumValidityPeriods {
            rules.append(MaximumValidityRule(position: .anchor, profile: .iacaRoot, maximumDays: MaximumValidity.iacaRoot))
        }
        if options.requireCRLDistributionPoints {
            rules.append(CRLDistributionPointsRule(position: .anchor, profile: .iacaRoot))
        }
        self.rules = AnchorProfileRules(profile: .iacaRoot, options: options, rules: RuleSet(rules))
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// ISO/IEC 18013-5:2021 B.1.3, the Document Signer certificate, checked on the leaf of a path: not a CA; keyUsage
/// exactly {digitalSignature}, critical; extKeyUsage exactly id-mdl-kp-mdlDS (1.0.18013.5.1.2), critical;
/// subjectKeyIdentifier; authorityKeyIdentifier equal to the issuer's subjectKeyIdentifier; issuerAltName; subject
/// with commonName and the IACA's countryName (and stateOrProvinceName when the IACA has one); validity inside the
/// IACA's and at most 457 days; cRLDistributionPoints with a URI when `AnnexBOptions` asks.
public struct DocumentSignerProfile: AnnexBRule {
    private let rules: RuleSet

    public init(options: AnnexBOptions = .default) {
        var rules: [any AnnexBRule] = [
            BasicConstraintsRule(position: .leaf, profile: .documentSigner, requirement: .endEntity),
            KeyUsageRule(position: .leaf, profile: .documentSigner, required: KeyUsage(digitalSignature: true), exact: true),
            ExtendedKeyUsageRule(
                position: .leaf,
                profile: .documentSigner,
                purpose: ASN1ObjectIdentifier.ISO18013.documentSigner,
                purposeName: ExtendedKeyUsageName.documentSigner
            ),
            KeyIdentifierRule(position: .leaf, profile: .documentSigner, requireAuthorityKeyIdentifier: true),
            IssuerAlternativeNameRule(position: .leaf, profile: .documentSigner, requirement: .required),
            SubjectNameRule(position: .leaf, profile: .documentSigner, requireCountry: true),
            CountryConsistencyRule(),
            ValidityNestingRule(),
        ]
        if options.enforceMaximumValidityPeriods {
            rules.append(
                MaximumValidityRule(position: .leaf, profile: .documentSigner, maximumDays: MaximumValidity.documentSigner)
            )
        }
        if options.requireCRLDistributionPoints {
            rules.append(CRLDistributionPointsRule(position: .leaf, profile: .documentSigner))
        }
        self.rules = RuleSet(rules)
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// ISO/IEC 18013-5:2021 B.1.7, the root (issuing CA) of mdoc reader authentication certificates, checked on the
/// trust anchor of a path: basicConstraints cA = TRUE, critical; keyUsage including keyCertSign, critical;
/// subject with commonName; subjectKeyIdentifier.
public struct ReaderRootProfile: AnnexBRule {
    private let rules: AnchorProfileRules

    public init(options: AnnexBOptions = .default) {
        rules = AnchorProfileRules(profile: .readerRoot, options: options, rules: RuleSet([
            BasicConstraintsRule(position: .anchor, profile: .readerRoot, requirement: .certificateAuthority(pathLength: nil)),
            KeyUsageRule(position: .anchor, profile: .readerRoot, required: KeyUsage(keyCertSign: true), exact: false),
            SubjectNameRule(position: .anchor, profile: .readerRoot, requireCountry: false),
            KeyIdentifierRule(position: .anchor, profile: .readerRoot, requireAuthorityKeyIdentifier: false),
        ]))
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// ISO/IEC 18013-5:2021 B.1.7, the mdoc reader authentication certificate, checked on the leaf of a path: not a CA;
/// keyUsage exactly {digitalSignature}, critical; extKeyUsage exactly id-mdl-kp-mdlReaderAuth (1.0.18013.5.1.6),
/// critical; subject with commonName; subjectKeyIdentifier; authorityKeyIdentifier equal to the issuer's
/// subjectKeyIdentifier; issuerAltName when the issuer has one; validity of at most 1187 days.
public struct ReaderAuthenticationProfile: AnnexBRule {
    private let rules: RuleSet

    public init(options: AnnexBOptions = .default) {
        var rules: [any AnnexBRule] = [
            BasicConstraintsRule(position: .leaf, profile: .readerAuthentication, requirement: .endEntity),
            KeyUsageRule(
                position: .leaf,
                profile: .readerAuthentication,
                required: KeyUsage(digitalSignature: true),
                exact: true
            ),
            ExtendedKeyUsageRule(
                position: .leaf,
                profile: .readerAuthentication,
                purpose: ASN1ObjectIdentifier.ISO18013.readerAuthentication,
                purposeName: ExtendedKeyUsageName.readerAuthentication
            ),
            KeyIdentifierRule(position: .leaf, profile: .readerAuthentication, requireAuthorityKeyIdentifier: true),
            IssuerAlternativeNameRule(position: .leaf, profile: .readerAuthentication, requirement: .whenIssuerHasOne),
            SubjectNameRule(position: .leaf, profile: .readerAuthentication, requireCountry: false),
        ]
        if options.enforceMaximumValidityPeriods {
            rules.append(
                MaximumValidityRule(
                    position: .leaf,
                    profile: .readerAuthentication,
                    maximumDays: MaximumValidity.readerAuthentication
                )
            )
        }
        self.rules = RuleSet(rules)
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// A Document Signer chain (x5chain of IssuerAuth, 9.1.2.4) under ISO/IEC 18013-5:2021 Annex B: every link
/// (`CertificationPathPolicy`), the leaf as Document Signer (`DocumentSignerProfile`), the anchor as IACA root
/// (`IACARootProfile`).
public struct DocumentSignerChainPolicy: AnnexBRule {
    private let rules: RuleSet

    public init(validationTime: Date, options: AnnexBOptions = .default) {
        rules = RuleSet([
            CertificationPathPolicy(validationTime: validationTime),
            DocumentSignerProfile(options: options),
            IACARootProfile(options: options),
        ])
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// An mdoc reader authentication chain (x5chain of ReaderAuth, 9.1.4) under ISO/IEC 18013-5:2021 Annex B: every
/// link (`CertificationPathPolicy`), the leaf as reader authentication certificate
/// (`ReaderAuthenticationProfile`), the anchor as reader root (`ReaderRootProfile`).
public struct ReaderChainPolicy: AnnexBRule {
    private let rules: RuleSet

    public init(validationTime: Date, options: AnnexBOptions = .default) {
        rules = RuleSet([
            CertificationPathPolicy(validationTime: validationTime),
            ReaderAuthenticationProfile(options: options),
            ReaderRootProfile(options: options),
        ])
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// The rules of an anchor profile (`IACARootProfile`, `ReaderRootProfile`). They read the trust anchor alone, never
/// the path below it, so an anchor that meets them is checked once per `TrustAnchors` (in a validation against
/// those anchors) rather than once per chain. An anchor that does not meet them is checked on every path, so that
/// each violation carries the anchor's position in that path.
struct AnchorProfileRules: AnnexBRule {
    let profile: CertificateProfile
    let options: AnnexBOptions
    let rules: RuleSet

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    func violations(in path: CertificationPath) -> [TrustError] {
        guard let index = path.anchorIndex else { return [] }
        let conforms = SignatureMemo.current?.anchors?.knownConformance(of: path[index], to: profile, options: options) {
            rules.violations(in: CertificationPath([path[index]], isAnchored: true)).isEmpty
        }
        return conforms == true ? [] : rules.violations(in: path)
    }
}
