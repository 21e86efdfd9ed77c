import Foundation
import SwiftASN1
import X509

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
/// the outcome lists every Annex B failure of the path as sent, not just the first. The rules run once per path
/// (the Verifier's evaluation of the same path is reused) and no signature is verified twice (see `PathValidation`). Every certificate sent must be part of the path: one failing certificate or link fails the
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
        switch ChainDER.parse(chainDER) {
        case .failure(let outcome): return outcome
        case .success(let chain): return await validate(chain, purpose: purpose, anchors: anchors, at: instant, options: options)
        }
    }

    static func validate(
        _ chain: [Certificate],
        purpose: Purpose,
        anchors: TrustAnchors,
        at instant: Date,
        options: AnnexBOptions
    ) async -> ChainValidationOutcome {
        switch purpose {
        case .documentSigner:
            let rules = DocumentSignerChainPolicy(validationTime: instant, options: options)
            return await PathValidation.validate(chain, anchors: anchors, at: instant, rules: rules)
        case .readerAuthentication:
            let rules = ReaderChainPolicy(validationTime: instant, options: options)
            return await PathValidation.validate(chain, anchors: anchors, at: instant, rules: rules)
        }
    }
}
