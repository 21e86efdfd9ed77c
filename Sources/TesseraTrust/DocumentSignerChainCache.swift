import Foundation
import Synchronization
import X509

/// Document Signer chains that validated, remembered so that a reader which sees the same few DS certificates all
/// day (a venue door) parses and validates each chain once, while the issuerAuth signature over every MSO is still
/// verified each time.
///
/// An entry is keyed by the exact x5chain bytes as received, the anchors and the Annex B options it was validated
/// under, and answers only at instants inside the validity period of every certificate on its path (validity is the
/// only rule that depends on the instant). Failed validations are never remembered, so their failures are reported
/// in full each time. At most `capacity` chains are kept; the least recently used is dropped first.
public final class DocumentSignerChainCache: Sendable {
    private struct Key: Hashable {
        let chain: [Data]
        let anchors: TrustAnchors
        let options: AnnexBOptions
    }

    private struct Entry {
        let outcome: ChainValidationOutcome
        /// The latest notBefore and the earliest notAfter on the path (anchor included).
        let validFrom: Date
        let validUntil: Date
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var uses: UInt64 = 0
    }

    public let capacity: Int
    private let state = Mutex(State())

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// The number of chains held (for tests).
    public var count: Int { state.withLock { $0.entries.count } }

    /// `validateDocumentSignerChain`, answered from the cache when this exact chain validated before under the same
    /// anchors and options and `instant` lies inside every certificate's validity.
    public func validate(
        _ chainDER: [Data], anchors: TrustAnchors, at instant: Date, options: AnnexBOptions = .default
    ) async -> ChainValidationOutcome {
        let key = Key(chain: chainDER, anchors: anchors, options: options)
        if let outcome = lookup(key, at: instant) { return outcome }
        let outcome = await validateDocumentSignerChain(chainDER, anchors: anchors, at: instant, options: options)
        if outcome.isValid { insert(key, outcome) }
        return outcome
    }

    private func lookup(_ key: Key, at instant: Date) -> ChainValidationOutcome? {
        state.withLock { state in
            guard var entry = state.entries[key], entry.validFrom <= instant, instant <= entry.validUntil else { return nil }
            state.uses &+= 1
            entry.lastUse = state.uses
            state.entries[key] = entry
            return entry.outcome
        }
    }

    private func insert(_ key: Key, _ outcome: ChainValidationOutcome) {
        guard !outcome.path.isEmpty,
            let validFrom = outcome.path.map(\.notValidBefore).max(),
            let validUntil = outcome.path.map(\.notValidAfter).min()
        else { return }
        state.withLock { state in
            if state.entries[key] == nil, state.entries.count >= capacity,
                let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            {
                state.entries[oldest] = nil
            }
            state.uses &+= 1
            state.entries[key] = Entry(outcome: outcome, validFrom: validFrom, validUntil: validUntil, lastUse: state.uses)
        }
    }
}
