import Foundation
import TesseraTrust
import X509

extension CompactJWS {
    /// The `x5c` header (RFC 7515 §4.1.6) as DER certificates, leaf first: a non-empty JSON array of standard
    /// base64 (not base64url) DER strings, at most `JOSELimits.maxX5CCertificates` (of the limits it was parsed
    /// with).
    public func x5cCertificates() throws(JOSEError) -> [Data] {
        var certificates: [Data] = []
        for (index, text) in try x5cEntries().enumerated() {
            guard let der = Data(base64Encoded: text), !der.isEmpty else {
                throw .invalidX5C("entry \(index) is not base64")
            }
            certificates.append(der)
        }
        return certificates
    }

    /// The `x5c` entries as received (also `X5CChainCache`'s key): a non-empty array of strings within the limit.
    private func x5cEntries() throws(JOSEError) -> [String] {
        guard let value = header["x5c"] else { throw .invalidX5C("no x5c header") }
        guard let entries = value.arrayValue else { throw .invalidX5C("not an array") }
        guard !entries.isEmpty else { throw .invalidX5C("empty array") }
        guard entries.count <= limits.maxX5CCertificates else {
            throw .invalidX5C("\(entries.count) certificates, at most \(limits.maxX5CCertificates) accepted")
        }
        var strings: [String] = []
        strings.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            guard let text = entry.stringValue else { throw .invalidX5C("entry \(index) is not a string") }
            strings.append(text)
        }
        return strings
    }

    /// Validates the `x5c` chain (leaf first) with TesseraTrust's RFC 5280 x5c validation against `anchors` at
    /// `instant`, then verifies the signature with the leaf certificate's key. Returns the validated leaf. With a
    /// `cache`, a chain that validated before (same strings, same anchors, `instant` inside its validity) is taken
    /// from it; the signature is verified either way.
    public func verifyX5C(anchors: [Certificate], at instant: Date, cache: X5CChainCache? = nil) async throws(JOSEError) -> Certificate {
        let strings = cache == nil ? nil : try? x5cEntries()
        if let cache, let strings, let known = cache.lookup(strings, anchors: anchors, at: instant) {
            try verify(with: known.key)
            return known.leaf
        }
        let chain = try x5cCertificates()
        let outcome = await validateX5CChain(chain, anchors: TrustAnchors(anchors), at: instant)
        guard outcome.isValid, let leaf = outcome.leaf else {
            throw .x5cChainInvalid(outcome.failures.map(\.description))
        }
        let key = try JWSVerificationKey(certificate: leaf)
        if let cache, let strings { cache.insert(strings, path: outcome.path, key: key, anchors: anchors) }
        try verify(with: key)
        return leaf
    }
}
