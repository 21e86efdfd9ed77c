import SwiftASN1
import X509

/// A rule of a certificate profile, usable two ways:
/// - as a swift-certificates `VerifierPolicy` (the `Verifier` learns whether the chain meets it), and
/// - directly, through `violations(in:)`, which lists *every* violation instead of stopping at the first.
///
/// Profiles (`IACARootProfile`, `DocumentSignerProfile`, …) are rules composed of smaller rules.
public protocol AnnexBRule: VerifierPolicy, Sendable {
    /// Every violation of this rule in `path` (empty when the rule is met).
    func violations(in path: CertificationPath) -> [TrustError]
}

extension AnnexBRule {
    public var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [] }

    public mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        let found = violations(in: CertificationPath(chain))
        guard !found.isEmpty else { return .meetsPolicy }
        let reason = found.map(\.description).joined(separator: "; ")
        return .failsToMeetPolicy(reason: reason)
    }
}

/// Rules run one after the other; violations are concatenated in order.
struct RuleSet: AnnexBRule {
    let rules: [any AnnexBRule]
    /// The rules' critical extensions, without repeats: collected once, since the `Verifier` asks on every
    /// validation.
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier]

    init(_ rules: [any AnnexBRule]) {
        self.rules = rules
        var oids: [ASN1ObjectIdentifier] = []
        for oid in rules.flatMap(\.verifyingCriticalExtensions) where !oids.contains(oid) {
            oids.append(oid)
        }
        verifyingCriticalExtensions = oids
    }

    func violations(in path: CertificationPath) -> [TrustError] {
        var found: [TrustError] = []
        for rule in rules { found += rule.violations(in: path) }
        return found
    }
}
