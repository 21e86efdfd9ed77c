import Foundation
import X509

/// x5c chains that validated, remembered so that a verifier which sees the same issuer chain on every presentation
/// (a relying party's service) parses and validates it once — X.509 decoding, the RFC 5280 rules, the chain's own
/// signatures — while the JWS signature itself is still verified every time.
///
/// An entry is keyed by the exact `x5c` strings as received and answers only for the anchors it was validated
/// against and at instants inside the validity period of every certificate on its path, validity being the only
/// rule that depends on the instant. Failed validations are never remembered, so their failures are reported in
/// full each time. At most `capacity` chains are kept; the least recently used is dropped first.
public final class X5CChainCache: @unchecked Sendable {
    struct Entry {
        let leaf: Certificate
        let key: JWSVerificationKey
        let anchors: [Certificate]
        /// The latest notBefore and the earliest notAfter on the path (anchor included).
        let validFrom: Date
        let validUntil: Date
        var lastUse: UInt64
    }

    public let capacity: Int
    private let lock = NSLock()
    private var entries: [[String]: Entry] = [:]
    private var uses: UInt64 = 0

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// The number of chains held (for tests).
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }

    func lookup(_ x5c: [String], anchors: [Certificate], at instant: Date) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = entries[x5c], entry.validFrom <= instant, instant <= entry.validUntil, entry.anchors == anchors
        else { return nil }
        uses &+= 1
        entry.lastUse = uses
        entries[x5c] = entry
        return entry
    }

    func insert(_ x5c: [String], path: [Certificate], key: JWSVerificationKey, anchors: [Certificate]) {
        guard let leaf = path.first,
            let validFrom = path.map(\.notValidBefore).max(), let validUntil = path.map(\.notValidAfter).min()
        else { return }
        lock.lock()
        defer { lock.unlock() }
        if entries[x5c] == nil, entries.count >= capacity,
            let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key
        {
            entries[oldest] = nil
        }
        uses &+= 1
        entries[x5c] = Entry(
            leaf: leaf, key: key, anchors: anchors, validFrom: validFrom, validUntil: validUntil, lastUse: uses)
    }
}
