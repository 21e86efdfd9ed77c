import Foundation

/// Every failure TesseraTrust reports: one case per rule broken, citing its clause (`clause`) in `description`.
///
/// Certificate positions (`certificate:`) count along the certification path, leaf first: positions below the
/// x5chain length are x5chain entries; the position equal to the x5chain length is the trust anchor, when the
/// anchor was not itself sent in the x5chain. Descriptions carry only public certificate data.
public enum TrustError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: Input

    /// The x5chain holds no certificate (B.1.1: it carries at least the end-entity certificate).
    case emptyChain
    /// An x5chain entry is not a DER X.509 certificate that swift-certificates can parse.
    case malformedCertificate(certificate: Int, reason: String)
    /// A trust anchor could not be parsed.
    case malformedTrustAnchor(index: Int, reason: String)
    /// A PEM bundle could not be read or held no `CERTIFICATE` block.
    case invalidPEM(reason: String)

    // MARK: Certification path (RFC 5280 §6.1, B.1.1)

    /// No trust anchor issued the top certificate of the chain (its issuer name is given).
    case untrustedRoot(issuer: String)
    /// The certificate's signature does not verify with its issuer's public key
    /// (for a self-signed IACA root: with its own key).
    case signatureInvalid(certificate: Int)
    /// The certificate's issuer name is not its issuer's subject name.
    case issuerNameMismatch(certificate: Int)
    /// The validation instant is after notAfter.
    case expired(certificate: Int, notAfter: Date)
    /// The validation instant is before notBefore.
    case notYetValid(certificate: Int, notBefore: Date)
    /// notBefore is after notAfter.
    case invalidValidityPeriod(certificate: Int)
    /// More non-self-issued intermediates follow the CA than its pathLenConstraint allows.
    case pathLengthExceeded(certificate: Int, maximum: Int, found: Int)
    /// A critical extension no rule understands.
    case unhandledCriticalExtension(certificate: Int, oid: String)
    /// An extension B.1.1 forbids (policyMappings, nameConstraints, policyConstraints, inhibitAnyPolicy, freshestCRL).
    case prohibitedExtension(certificate: Int, extension: String)
    /// Not an X.509 v3 certificate.
    case unsupportedVersion(certificate: Int)
    /// The serial number is not a positive integer of at most 20 octets.
    case invalidSerialNumber(certificate: Int)
    /// An extension is present but cannot be decoded.
    case malformedExtension(certificate: Int, extension: String, reason: String)
    /// swift-certificates' `Verifier` rejected the chain for a reason the profile checks did not also find.
    case pathValidationFailed(reason: String)

    // MARK: Annex B profiles

    /// basicConstraints does not have the value the profile asks for.
    case basicConstraintsViolation(certificate: Int, profile: CertificateProfile, problem: BasicConstraintsProblem)
    /// keyUsage is absent (`found == nil`) or does not hold exactly the bits the profile asks for.
    case keyUsageViolation(certificate: Int, profile: CertificateProfile, expected: String, found: String?)
    /// An extension has the wrong criticality for the profile.
    case extensionCriticality(certificate: Int, profile: CertificateProfile, extension: String, mustBeCritical: Bool)
    /// extKeyUsage is absent (B.1.3 asks for id-mdl-kp-mdlDS, B.1.7 for id-mdl-kp-mdlReaderAuth).
    case missingExtendedKeyUsage(certificate: Int, expected: String)
    /// extKeyUsage is present but is not exactly the expected purpose.
    case extendedKeyUsageMismatch(certificate: Int, expected: String, found: [String])
    /// subjectKeyIdentifier is absent.
    case missingSubjectKeyIdentifier(certificate: Int, profile: CertificateProfile)
    /// authorityKeyIdentifier (with a keyIdentifier) is absent.
    case missingAuthorityKeyIdentifier(certificate: Int, profile: CertificateProfile)
    /// authorityKeyIdentifier does not equal the issuer's subjectKeyIdentifier.
    case authorityKeyIdentifierMismatch(certificate: Int, profile: CertificateProfile)
    /// issuerAltName is absent.
    case missingIssuerAlternativeName(certificate: Int, profile: CertificateProfile)
    /// issuerAltName holds neither an e-mail address nor a URI.
    case invalidIssuerAlternativeName(certificate: Int, profile: CertificateProfile)
    /// cRLDistributionPoints is absent or names no URI (checked only with `AnnexBOptions.requireCRLDistributionPoints`).
    case missingCRLDistributionPoints(certificate: Int, profile: CertificateProfile)
    /// The subject has no commonName.
    case missingCommonName(certificate: Int, profile: CertificateProfile)
    /// The subject has no countryName (or more than one).
    case missingCountry(certificate: Int, profile: CertificateProfile)
    /// countryName is not an upper-case ISO 3166-1 alpha-2 code.
    case invalidCountryCode(certificate: Int, value: String)
    /// The Document Signer's countryName differs from the IACA's (B.1.3).
    case countryMismatch(iaca: String, ds: String)
    /// The IACA has a stateOrProvinceName and the Document Signer's differs or is absent (B.1.3).
    case stateOrProvinceMismatch(iaca: String?, ds: String?)
    /// The IACA root is not self-issued (subject ≠ issuer) (B.1.2).
    case notSelfSigned(certificate: Int)
    /// The Document Signer's validity is not inside the IACA's validity (B.1.3).
    case validityOutsideIssuer(certificate: Int)
    /// The validity period is longer than the profile's maximum.
    case validityPeriodTooLong(certificate: Int, profile: CertificateProfile, days: Int, maximumDays: Int)

    // MARK: Issuance

    /// A test-PKI request cannot produce a certificate that meets Annex B.
    case invalidIssuanceRequest(String)
    /// Key generation, encoding or signing failed while creating a certificate.
    case issuanceFailed(String)

    /// What is wrong with basicConstraints.
    public enum BasicConstraintsProblem: Sendable, Hashable, CustomStringConvertible {
        /// Absent, but the profile needs it.
        case missing
        /// Present but not critical, and the profile needs it critical.
        case notCritical
        /// cA is false, but the certificate issues certificates.
        case notCA
        /// cA is true on an end-entity certificate.
        case markedCA
        /// pathLenConstraint is absent, but the profile fixes it.
        case pathLengthMissing(expected: Int)
        /// pathLenConstraint has another value than the profile fixes.
        case pathLengthMismatch(expected: Int, found: Int)

        public var description: String {
            switch self {
            case .missing: return "basicConstraints is absent"
            case .notCritical: return "basicConstraints is not critical"
            case .notCA: return "basicConstraints cA is not true"
            case .markedCA: return "basicConstraints marks an end-entity certificate as a CA"
            case .pathLengthMissing(let expected): return "pathLenConstraint is absent (expected \(expected))"
            case .pathLengthMismatch(let expected, let found):
                return "pathLenConstraint is \(found) (expected \(expected))"
            }
        }
    }

    /// The clause of ISO/IEC 18013-5:2021 (or RFC 5280) whose rule the case reports.
    public var clause: String {
        switch self {
        case .emptyChain, .prohibitedExtension: return "ISO/IEC 18013-5:2021 B.1.1"
        case .malformedCertificate, .malformedTrustAnchor, .invalidPEM, .malformedExtension,
            .unsupportedVersion, .invalidSerialNumber:
            return "RFC 5280 §4.1"
        case .untrustedRoot, .signatureInvalid, .issuerNameMismatch, .expired, .notYetValid,
            .invalidValidityPeriod, .pathLengthExceeded, .unhandledCriticalExtension, .pathValidationFailed:
            return CertificateProfile.certificationPath.clause
        case .basicConstraintsViolation(_, let profile, _), .keyUsageViolation(_, let profile, _, _),
            .extensionCriticality(_, let profile, _, _), .missingSubjectKeyIdentifier(_, let profile),
            .missingAuthorityKeyIdentifier(_, let profile), .authorityKeyIdentifierMismatch(_, let profile),
            .missingIssuerAlternativeName(_, let profile), .invalidIssuerAlternativeName(_, let profile),
            .missingCRLDistributionPoints(_, let profile), .missingCommonName(_, let profile),
            .missingCountry(_, let profile), .validityPeriodTooLong(_, let profile, _, _):
            return profile.clause
        case .missingExtendedKeyUsage(_, let expected), .extendedKeyUsageMismatch(_, let expected, _):
            return expected.hasPrefix(ExtendedKeyUsageName.readerAuthentication)
                ? CertificateProfile.readerAuthentication.clause : CertificateProfile.documentSigner.clause
        case .invalidCountryCode, .notSelfSigned: return CertificateProfile.iacaRoot.clause
        case .countryMismatch, .stateOrProvinceMismatch, .validityOutsideIssuer:
            return CertificateProfile.documentSigner.clause
        case .invalidIssuanceRequest, .issuanceFailed: return "ISO/IEC 18013-5:2021 Annex B"
        }
    }

    public var description: String {
        "\(clause): \(detail)"
    }

    private var detail: String {
        switch self {
        case .emptyChain:
            return "the x5chain is empty; it must carry at least the end-entity certificate"
        case .malformedCertificate(let i, let reason):
            return "certificate #\(i) is not a valid DER X.509 certificate (\(reason))"
        case .malformedTrustAnchor(let i, let reason):
            return "trust anchor #\(i) is not a valid X.509 certificate (\(reason))"
        case .invalidPEM(let reason):
            return "PEM bundle unreadable: \(reason)"
        case .untrustedRoot(let issuer):
            return "no trust anchor issued the chain (top issuer \(issuer))"
        case .signatureInvalid(let i):
            return "certificate #\(i): signature does not verify with the issuer's public key"
        case .issuerNameMismatch(let i):
            return "certificate #\(i): issuer name is not the subject name of certificate #\(i + 1)"
        case .expired(let i, let notAfter):
            return "certificate #\(i) expired at \(notAfter.formatted(.iso8601))"
        case .notYetValid(let i, let notBefore):
            return "certificate #\(i) is not valid before \(notBefore.formatted(.iso8601))"
        case .invalidValidityPeriod(let i):
            return "certificate #\(i): notBefore is after notAfter"
        case .pathLengthExceeded(let i, let maximum, let found):
            return "certificate #\(i): pathLenConstraint \(maximum) but \(found) intermediate CA certificate(s) follow"
        case .unhandledCriticalExtension(let i, let oid):
            return "certificate #\(i): unhandled critical extension \(oid)"
        case .prohibitedExtension(let i, let name):
            return "certificate #\(i): extension \(name) shall not be used"
        case .unsupportedVersion(let i):
            return "certificate #\(i) is not an X.509 v3 certificate"
        case .invalidSerialNumber(let i):
            return "certificate #\(i): serial number is not a positive integer of at most 20 octets"
        case .malformedExtension(let i, let name, let reason):
            return "certificate #\(i): extension \(name) cannot be decoded (\(reason))"
        case .pathValidationFailed(let reason):
            return "path validation failed: \(reason)"
        case .basicConstraintsViolation(let i, let profile, let problem):
            return "\(profile.certificateName) #\(i): \(problem)"
        case .keyUsageViolation(let i, let profile, let expected, let found):
            return "\(profile.certificateName) #\(i): keyUsage must be \(expected), found \(found ?? "no keyUsage extension")"
        case .extensionCriticality(let i, let profile, let name, let mustBeCritical):
            return "\(profile.certificateName) #\(i): \(name) must \(mustBeCritical ? "" : "not ")be critical"
        case .missingExtendedKeyUsage(let i, let expected):
            return "certificate #\(i): extKeyUsage is absent (expected \(expected))"
        case .extendedKeyUsageMismatch(let i, let expected, let found):
            return "certificate #\(i): extKeyUsage must be exactly \(expected), found [\(found.joined(separator: ", "))]"
        case .missingSubjectKeyIdentifier(let i, let profile):
            return "\(profile.certificateName) #\(i): subjectKeyIdentifier is absent"
        case .missingAuthorityKeyIdentifier(let i, let profile):
            return "\(profile.certificateName) #\(i): authorityKeyIdentifier keyIdentifier is absent"
        case .authorityKeyIdentifierMismatch(let i, let profile):
            return "\(profile.certificateName) #\(i): authorityKeyIdentifier differs from the issuer's subjectKeyIdentifier"
        case .missingIssuerAlternativeName(let i, let profile):
            return "\(profile.certificateName) #\(i): issuerAltName is absent"
        case .invalidIssuerAlternativeName(let i, let profile):
            return "\(profile.certificateName) #\(i): issuerAltName holds neither an e-mail address nor a URI"
        case .missingCRLDistributionPoints(let i, let profile):
            return "\(profile.certificateName) #\(i): cRLDistributionPoints with a URI is absent"
        case .missingCommonName(let i, let profile):
            return "\(profile.certificateName) #\(i): subject has no commonName"
        case .missingCountry(let i, let profile):
            return "\(profile.certificateName) #\(i): subject must have exactly one countryName"
        case .invalidCountryCode(let i, let value):
            return "certificate #\(i): countryName \"\(value)\" is not an upper-case ISO 3166-1 alpha-2 code"
        case .countryMismatch(let iaca, let ds):
            return "Document Signer countryName \"\(ds)\" differs from the IACA countryName \"\(iaca)\""
        case .stateOrProvinceMismatch(let iaca, let ds):
            return "Document Signer stateOrProvinceName \(ds.map { "\"\($0)\"" } ?? "(absent)") differs from the IACA's "
                + (iaca.map { "\"\($0)\"" } ?? "(absent)")
        case .notSelfSigned(let i):
            return "IACA root certificate #\(i) is not self-signed"
        case .validityOutsideIssuer(let i):
            return "certificate #\(i): validity period is not within the IACA validity period"
        case .validityPeriodTooLong(let i, let profile, let days, let maximum):
            return "\(profile.certificateName) #\(i): validity of \(days) days exceeds the maximum of \(maximum) days"
        case .invalidIssuanceRequest(let reason):
            return "cannot issue: \(reason)"
        case .issuanceFailed(let reason):
            return "issuance failed: \(reason)"
        }
    }
}

/// Names used in `TrustError` for the two ISO/IEC 18013-5 extended key usages.
enum ExtendedKeyUsageName {
    static let documentSigner = "1.0.18013.5.1.2 (id-mdl-kp-mdlDS)"
    static let readerAuthentication = "1.0.18013.5.1.6 (id-mdl-kp-mdlReaderAuth)"
}
