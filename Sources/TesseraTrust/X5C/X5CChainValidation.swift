import Foundation
import SwiftASN1
import X509

/// Generic RFC 5280 path validation for JOSE `x5c` chains (RFC 7515 §4.1.6): the certificate holding the signing
/// key first, each next certificate certifying the one before; the chain may end with the trust anchor or stop
/// just below it.
///
/// Unlike the ISO/IEC 18013-5 profiles this asks nothing of the certificates beyond RFC 5280: validity at the
/// injected instant, name chaining and signatures, CA flags and keyCertSign on intermediates, path length, name
/// constraints (through swift-certificates' `RFC5280Policy`), X.509 v3 with a valid serial number, no unhandled
/// critical extension, and — when the leaf has keyUsage — digitalSignature on the leaf (RFC 5280 §4.2.1.3),
/// since the leaf key signs the JWS.
public func validateX5CChain(_ chainDER: [Data], anchors: TrustAnchors, at instant: Date) async -> ChainValidationOutcome {
    switch ChainDER.parse(chainDER) {
    case .failure(let outcome): return outcome
    case .success(let chain): return await validateX5CChain(chain, anchors: anchors, at: instant)
    }
}

/// `validateX5CChain(_:anchors:at:)` for already parsed certificates (leaf first).
public func validateX5CChain(_ chain: [Certificate], anchors: TrustAnchors, at instant: Date) async -> ChainValidationOutcome {
    await PathValidation.validate(chain, anchors: anchors, at: instant, rules: X5CChainPolicy(validationTime: instant))
}

/// The RFC 5280 rules an x5c chain is held to, as a swift-certificates `VerifierPolicy` and as a rule that lists
/// every violation (`violations(in:)`).
public struct X5CChainPolicy: AnnexBRule {
    private let rules: RuleSet

    /// - Parameter validationTime: the instant the path must be valid at (never the wall clock).
    public init(validationTime: Date) {
        rules = RuleSet([
            IssuerLinkRule(),
            ValidityAtInstantRule(validationTime: validationTime),
            IntermediateAuthorityRule(),
            PathLengthRule(),
            VersionAndSerialRule(),
            X5CCriticalExtensionRule(),
            X5CLeafKeyUsageRule(),
        ])
    }

    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { rules.verifyingCriticalExtensions }

    public func violations(in path: CertificationPath) -> [TrustError] { rules.violations(in: path) }
}

/// Critical extensions nobody checks reject the certificate (RFC 5280 §4.2). Handled here: basicConstraints,
/// keyUsage, nameConstraints (by `RFC5280Policy`) and subjectAltName, which only names the subject (it must be
/// critical when the subject is empty, RFC 5280 §4.2.1.6; relying parties check its content themselves).
struct X5CCriticalExtensionRule: AnnexBRule {
    static let handled: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.basicConstraints,
        .X509ExtensionID.keyUsage,
        .X509ExtensionID.nameConstraints,
        .X509ExtensionID.subjectAlternativeName,
    ]

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { Self.handled }

    func violations(in path: CertificationPath) -> [TrustError] {
        var found: [TrustError] = []
        for (index, certificate) in path.enumerated() {
            for ext in certificate.extensions where ext.critical && !Self.handled.contains(ext.oid) {
                found.append(.unhandledCriticalExtension(certificate: index, oid: ExtensionName.of(ext.oid)))
            }
        }
        return found
    }
}

/// The leaf key signs the JWS: when the leaf restricts its key usage, digitalSignature must be allowed
/// (RFC 5280 §4.2.1.3).
struct X5CLeafKeyUsageRule: AnnexBRule {
    func violations(in path: CertificationPath) -> [TrustError] {
        guard let leaf = path.leaf else { return [] }
        switch ExtensionLookup(leaf, .X509ExtensionID.keyUsage, decode: KeyUsage.init) {
        case .absent:
            return []
        case .malformed(let reason):
            return [.malformedExtension(certificate: 0, extension: "keyUsage", reason: reason)]
        case .present(let usage, _):
            guard !usage.digitalSignature else { return [] }
            return [
                .keyUsageViolation(
                    certificate: 0,
                    profile: .certificationPath,
                    expected: "to include {digitalSignature}",
                    found: KeyUsageNames.of(usage)
                )
            ]
        }
    }
}
