import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// The result of validating an x5chain: every failure found, and the path that was checked.
public struct ChainValidationOutcome: Sendable, Hashable {
    /// Every rule broken, in path order (links first, then the leaf profile, then the anchor profile), without
    /// duplicates. Empty exactly when the chain is valid.
    public var failures: [TrustError]
    /// The end-entity certificate (x5chain[0]), when it could be parsed.
    public var leaf: Certificate?
    /// The trust anchor that issued the chain, when one did.
    public var anchor: Certificate?
    /// The certification path that was checked, leaf first; ends with the anchor when one was found. Positions in
    /// `failures` index this array.
    public var path: [Certificate]
    /// What swift-certificates' `Verifier` reported while building and checking candidate chains (collected, never
    /// logged), kept when `Verifier` rejected the chain. Informational; `failures` is authoritative.
    public var diagnostics: [String]

    /// Whether the chain met every rule.
    public var isValid: Bool { failures.isEmpty }

    public init(
        failures: [TrustError],
        leaf: Certificate? = nil,
        anchor: Certificate? = nil,
        path: [Certificate] = [],
        diagnostics: [String] = []
    ) {
        self.failures = failures
        self.leaf = leaf
        self.anchor = anchor
        self.path = path
        self.diagnostics = diagnostics
    }
}

/// Validates a Document Signer x5chain (leaf first, as carried in IssuerAuth) against IACA roots, under
/// ISO/IEC 18013-5:2021 Annex B (`DocumentSignerChainPolicy`) at `instant`.
///
/// The chain runs through swift-certificates' `Verifier` (`RFC5280Policy` at `instant` plus the Annex B policy), and
/// the Annex B rules are also evaluated over the whole path directly, so that the outcome lists every failure,
/// not just the first. Every certificate sent must be part of the path: one failing certificate or link fails the
/// chain. The x5chain may end with the IACA root itself or stop below it.
public func validateDocumentSignerChain(
    _ chainDER: [Data],
    anchors: TrustAnchors,
    at instant: Date,
    options: AnnexBOptions = .default
) async -> ChainValidationOutcome {
    await ChainValidation.validate(chainDER, purpose: .documentSigner, anchors: anchors, at: instant, options: options)
}

/// `validateDocumentSignerChain(_:anchors:at:options:)` for already parsed certificates (leaf first).
public func validateDocumentSignerChain(
    _ chain: [Certificate],
    anchors: TrustAnchors,
    at instant: Date,
    options: AnnexBOptions = .default
) async -> ChainValidationOutcome {
    await ChainValidation.validate(chain, purpose: .documentSigner, anchors: anchors, at: instant, options: options)
}

/// Validates an mdoc reader authentication x5chain (leaf first, as carried in ReaderAuth) against reader roots,
/// under ISO/IEC 18013-5:2021 Annex B (`ReaderChainPolicy`) at `instant`. Same method as
/// `validateDocumentSignerChain`.
public func validateReaderChain(
    _ chainDER: [Data],
    anchors: TrustAnchors,
    at instant: Date,
    options: AnnexBOptions = .default
) async -> ChainValidationOutcome {
    await ChainValidation.validate(chainDER, purpose: .readerAuthentication, anchors: anchors, at: instant, options: options)
}

/// `validateReaderChain(_:anchors:at:options:)` for already parsed certificates (leaf first).
public func validateReaderChain(
    _ chain: [Certificate],
    anchors: TrustAnchors,
    at instant: Date,
    options: AnnexBOptions = .default
) async -> ChainValidationOutcome {
    await ChainValidation.validate(chain, purpose: .readerAuthentication, anchors: anchors, at: instant, options: options)
}

enum ChainValidation {
    enum Purpose {
        case documentSigner
        case readerAuthentication
    }

    static func validate(
        _ chainDER: [Data],
        purpose: Purpose,
        anchors: TrustAnchors,
        at instant: Date,
        options: AnnexBOptions
    ) async -> ChainValidationOutcome {
        guard !chainDER.isEmpty else { return ChainValidationOutcome(failures: [.emptyChain]) }
        var chain: [Certificate] = []
        var failures: [TrustError] = []
        for (index, der) in chainDER.enumerated() {
            do {
                chain.append(try Certificate(derEncoded: Array(der)))
            } catch {
                failures.append(.malformedCertificate(certificate: index, reason: String(describing: error)))
            }
        }
        guard failures.isEmpty else {
            let leaf = chainDER.first.flatMap { try? Certificate(derEncoded: Array($0)) }
            return ChainValidationOutcome(failures: failures, leaf: leaf)
        }
        return await validate(chain, purpose: purpose, anchors: anchors, at: instant, options: options)
    }

    static func validate(
        _ chain: [Certificate],
        purpose: Purpose,
        anchors: TrustAnchors,
        at instant: Date,
        options: AnnexBOptions
    ) async -> ChainValidationOutcome {
        await SignatureMemo.$current.withValue(SignatureMemo()) {
            await validateOnce(chain, purpose: purpose, anchors: anchors, at: instant, options: options)
        }
    }

    private static func validateOnce(
        _ chain: [Certificate],
        purpose: Purpose,
        anchors: TrustAnchors,
        at instant: Date,
        options: AnnexBOptions
    ) async -> ChainValidationOutcome {
        guard let leaf = chain.first, let top = chain.last else {
            return ChainValidationOutcome(failures: [.emptyChain])
        }
        var failures: [TrustError] = []

        // The path is the x5chain as sent, ending at a trust anchor: either the x5chain's last certificate is an
        // anchor (then the trusted copy is used), or an anchor issued it.
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
        let verdict: VerifierVerdict
        switch purpose {
        case .documentSigner:
            let policy = DocumentSignerChainPolicy(validationTime: instant, options: options)
            failures += policy.violations(in: path)
            verdict = await runVerifier(policy, leaf: leaf, chain: chain, anchors: anchors, at: instant)
        case .readerAuthentication:
            let policy = ReaderChainPolicy(validationTime: instant, options: options)
            failures += policy.violations(in: path)
            verdict = await runVerifier(policy, leaf: leaf, chain: chain, anchors: anchors, at: instant)
        }

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

    /// swift-certificates' chain builder with `RFC5280Policy` at the injected instant and the Annex B policy.
    private static func runVerifier<Policy: AnnexBRule>(
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
