import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// The method shared by every chain validator here (Annex B Document Signer and reader chains, JOSE x5c):
///
/// 1. swift-certificates' `Verifier` builds and checks the chain (`RFC5280Policy` at the injected instant plus
///    `rules` as a policy). It verifies each link's signature while building; every chain it hands a policy has
///    had all its links verified, so those results are recorded and never recomputed.
/// 2. The path as sent (the x5chain ending at a trust anchor) is checked against `rules` directly, so that the
///    outcome lists every violation rather than the first. When the Verifier already evaluated `rules` on that
///    very path, its list is reused: the rules run once per path.
///
/// Anchors' self-signatures come from `TrustAnchors` (verified once per set of anchors). Every other signature is
/// verified at most once per validation (`SignatureMemo`).
enum PathValidation {
    static func validate<Rules: AnnexBRule>(
        _ chain: [Certificate],
        anchors: TrustAnchors,
        at instant: Date,
        rules: Rules
    ) async -> ChainValidationOutcome {
        let memo = SignatureMemo(anchors: anchors)
        return await SignatureMemo.$current.withValue(memo) {
            await validateOnce(chain, anchors: anchors, at: instant, rules: rules, memo: memo)
        }
    }

    private static func validateOnce<Rules: AnnexBRule>(
        _ chain: [Certificate],
        anchors: TrustAnchors,
        at instant: Date,
        rules: Rules,
        memo: SignatureMemo
    ) async -> ChainValidationOutcome {
        guard let leaf = chain.first, let top = chain.last else {
            return ChainValidationOutcome(failures: [.emptyChain])
        }
        let evaluations = RuleEvaluations(rules: rules)
        let verdict = await runVerifier(
            EvaluatedRulesPolicy(evaluations: evaluations, memo: memo), leaf: leaf, chain: chain, anchors: anchors,
            at: instant)

        // The path is the x5chain as sent, ending at a trust anchor: either the x5chain's last certificate is an
        // anchor (then the trusted copy is used), or an anchor issued it.
        var failures: [TrustError] = []
        let path: CertificationPath
        if let anchor = anchors.anchor(matching: top) {
            path = CertificationPath(Array(chain.dropLast()) + [anchor], isAnchored: true)
        } else if let anchor = anchors.issuer(of: top) {
            path = CertificationPath(chain + [anchor], isAnchored: true)
        } else {
            path = CertificationPath(chain, isAnchored: false)
            failures.append(.untrustedRoot(issuer: top.issuer.description))
        }

        // Every rule over every certificate, collecting all violations.
        failures += evaluations.violations(in: path)

        if !verdict.isValid && failures.isEmpty {
            failures.append(.pathValidationFailed(reason: verdict.reason))
        }

        var seen = Set<TrustError>()
        let unique = failures.filter { seen.insert($0).inserted }
        return ChainValidationOutcome(
            failures: unique,
            leaf: leaf,
            anchor: path.anchor,
            path: path.certificates,
            diagnostics: verdict.diagnostics
        )
    }

    struct VerifierVerdict {
        var isValid: Bool
        var reason: String
        var diagnostics: [String]
    }

    /// Collects `Verifier` diagnostics instead of logging them. They are rendered as text only when
    /// the chain fails: describing every event of a good chain cost more than checking it.
    private final class DiagnosticsCollector {
        var entries: [VerificationDiagnostic] = []
        var rendered: [String] { entries.map { String(describing: $0) } }
    }

    /// swift-certificates' chain builder with `RFC5280Policy` at the injected instant and the rules.
    private static func runVerifier<Policy: VerifierPolicy>(
        _ policy: Policy,
        leaf: Certificate,
        chain: [Certificate],
        anchors: TrustAnchors,
        at instant: Date
    ) async -> VerifierVerdict {
        var verifier = Verifier(rootCertificates: CertificateStore(anchors.certificates)) {
            RFC5280Policy(fixedExpiryValidationTime: instant)
            policy
        }
        let collector = DiagnosticsCollector()
        let result = await verifier.validate(
            leaf: leaf,
            intermediates: CertificateStore(chain.dropFirst()),
            diagnosticCallback: { collector.entries.append($0) }
        )
        switch result {
        case .validCertificate:
            return VerifierVerdict(isValid: true, reason: "", diagnostics: [])
        case .couldNotValidate(let policyFailures):
            let reasons = policyFailures.map(\.policyFailureReason.description)
            let reason =
                reasons.isEmpty
                ? "no chain to a trust anchor could be built" : reasons.joined(separator: " | ")
            return VerifierVerdict(isValid: false, reason: reason, diagnostics: collector.rendered)
        }
    }
}

/// The violations of one set of rules, per path, computed once each: the `Verifier`'s candidate chains and the
/// path as sent are usually the same path.
final class RuleEvaluations<Rules: AnnexBRule>: @unchecked Sendable {
    let rules: Rules
    private let lock = NSLock()
    private var evaluated: [(path: CertificationPath, violations: [TrustError])] = []

    init(rules: Rules) {
        self.rules = rules
    }

    func violations(in path: CertificationPath) -> [TrustError] {
        lock.lock()
        if let known = evaluated.first(where: { $0.path == path }) {
            lock.unlock()
            return known.violations
        }
        lock.unlock()
        let found = rules.violations(in: path)
        lock.lock()
        evaluated.append((path, found))
        lock.unlock()
        return found
    }
}

/// `rules` as the `Verifier`'s policy, evaluated through `RuleEvaluations` so that the direct check of the same
/// path reuses the result.
struct EvaluatedRulesPolicy<Rules: AnnexBRule>: VerifierPolicy {
    let evaluations: RuleEvaluations<Rules>
    let memo: SignatureMemo

    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { evaluations.rules.verifyingCriticalExtensions }

    mutating func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        // The Verifier applies policies only to chains whose every link signature it has verified
        // (swift-certificates `Verifier.shouldSkipAddingCertificate`): record them rather than verify again.
        let certificates = Array(chain)
        memo.recordVerifiedLinks(certificates)
        let found = evaluations.violations(in: CertificationPath(certificates, isAnchored: true))
        guard !found.isEmpty else { return .meetsPolicy }
        return .failsToMeetPolicy(reason: found.map(\.description).joined(separator: "; "))
    }
}
