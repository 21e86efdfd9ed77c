import Foundation
import TesseraCBOR

/// The four fields shared by COSE_Sign1 and COSE_Mac0 (RFC 9052 §4.2, §6.2):
/// `[protected: bstr, unprotected: header_map, payload: bstr / nil, signature-or-tag: bstr]`.
struct COSEMessageParts {
    var protected: COSEProtectedHeader
    var unprotected: COSEHeaders
    var payload: Data?
    var last: Data

    /// Reads the parts, checking the tag against `tag` under `requirement`.
    /// `structureError` builds the structure-specific error for a shape mismatch.
    init(
        cbor: CBOR, tag: UInt64, requirement: COSETagRequirement, lastName: String,
        structureError: (String) -> COSEError
    ) throws(COSEError) {
        let body: CBOR
        switch (cbor, requirement) {
        case (.tagged(let t, _), .forbidden):
            throw .unexpectedTag(t)
        case (.tagged(let t, let content), _):
            guard t == tag else { throw .wrongTag(found: t, expected: tag) }
            body = content
        case (_, .required):
            throw .missingTag(expected: tag)
        default:
            body = cbor
        }
        guard case .array(let items) = body else {
            throw structureError("expected an array of 4 elements, found \(body.kindName)")
        }
        guard items.count == 4 else { throw structureError("expected an array of 4 elements, found \(items.count)") }
        // crash-safe: the four indexes below are within the count checked above.
        guard case .bytes(let protectedBytes) = items[0] else {
            throw structureError("protected header must be a byte string, found \(items[0].kindName)")
        }
        guard case .map(let unprotectedMap) = items[1] else {
            throw structureError("unprotected header must be a map, found \(items[1].kindName)")
        }
        switch items[2] {
        case .bytes(let p): payload = p
        case .null: payload = nil
        default: throw structureError("payload must be a byte string or nil, found \(items[2].kindName)")
        }
        guard case .bytes(let last) = items[3] else {
            throw structureError("\(lastName) must be a byte string, found \(items[3].kindName)")
        }
        self.last = last
        protected = try COSEProtectedHeader(rawBytes: protectedBytes)
        unprotected = try COSEHeaders(map: unprotectedMap)
        try Self.checkBuckets(protected.headers, unprotected)
    }

    /// Decodes `bytes` strictly (RFC 8949 §5.3: no trailing bytes, no duplicate map keys).
    static func decode(_ bytes: some ContiguousBytes) throws(COSEError) -> CBOR {
        do { return try CBOR.decode(bytes, options: .strict) } catch { throw .malformed(error) }
    }

    /// RFC 9052 §3: a label must not occur in both buckets; `crit` must be protected (§3.1).
    static func checkBuckets(_ protected: COSEHeaders, _ unprotected: COSEHeaders) throws(COSEError) {
        if protected.count <= COSEHeaders.linearSearchLimit {
            // Small buckets (every real message): each unprotected label looked up in the protected map.
            let protectedEntries = protected.map.entries
            for entry in unprotected.map.entries where protectedEntries.contains(where: { $0.key.isSameLabel(as: entry.key) }) {
                if let label = try? COSEHeaderLabel(cbor: entry.key) { throw .duplicateHeaderLabel(label) }
            }
        } else {
            let protectedLabels = Set(protected.labels)
            for label in unprotected.labels where protectedLabels.contains(label) {
                throw .duplicateHeaderLabel(label)
            }
        }
        if unprotected[.critical] != nil {
            throw .invalidHeaderValue(label: .critical, reason: "must be in the protected bucket")
        }
    }

    /// The array, tagged with `tag` when asked, encoded with the protected bstr and payload as held
    /// and the unprotected map in its held order.
    static func encode(
        protected: COSEProtectedHeader, unprotected: COSEHeaders, payload: Data?, last: Data, tag: UInt64?
    ) -> Data {
        let array = CBOR.array([protected.cbor, unprotected.cbor, payload.map(CBOR.bytes) ?? .null, .bytes(last)])
        let item = tag.map { CBOR.tagged($0, array) } ?? array
        return item.encoded(options: .preserving)
    }
}

extension COSEVerificationOptions {
    /// The RFC 9052 header parameters a recipient always understands (§3.1).
    static let rfc9052Labels: Set<COSEHeaderLabel> = [1, 2, 3, 4, 5, 6]

    /// The algorithm to verify with, found where this policy allows (RFC 9052 §3.1).
    func algorithm(protected: COSEHeaders, unprotected: COSEHeaders) throws(COSEError) -> COSEAlgorithm {
        if let alg = try protected.algorithm { return alg }
        if !requireProtectedAlgorithm, let alg = try unprotected.algorithm { return alg }
        throw .missingAlgorithm
    }

    /// Rejects a `crit` list naming a label this recipient does not process (RFC 9052 §3.1).
    func checkCritical(_ protected: COSEHeaders) throws(COSEError) {
        for label in protected.criticalLabels ?? [] {
            guard Self.rfc9052Labels.contains(label) || understoodCriticalLabels.contains(label) else {
                throw .unknownCriticalHeader(label)
            }
        }
    }
}
