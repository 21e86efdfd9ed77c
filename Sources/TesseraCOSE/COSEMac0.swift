import Foundation
import TesseraCBOR

/// A COSE_Mac0 message (RFC 9052 §6.2):
/// `[protected: bstr, unprotected: header_map, payload: bstr / nil, tag: bstr]`,
/// tagged 17 or untagged.
///
/// The protected bstr and the payload are kept exactly as received and re-emitted unchanged
/// by `encoded(tagged:)`. A nil payload is detached (RFC 9052 §2) — ISO/IEC 18013-5
/// `DeviceMac` is sent this way — and must be supplied to `verify`.
public struct COSEMac0: Hashable, Sendable {
    /// The protected bucket with its bytes as received.
    public let protected: COSEProtectedHeader
    /// The unprotected bucket.
    public let unprotected: COSEHeaders
    /// The payload, or nil when detached.
    public let payload: Data?
    /// The MAC tag.
    public let tag: Data

    /// A message from its parts; a label present in both buckets is rejected (RFC 9052 §3).
    public init(protected: COSEProtectedHeader, unprotected: COSEHeaders = COSEHeaders(), payload: Data?, tag: Data)
        throws(COSEError)
    {
        try COSEMessageParts.checkBuckets(protected.headers, unprotected)
        self.protected = protected
        self.unprotected = unprotected
        self.payload = payload
        self.tag = tag
    }

    /// Reads a COSE_Mac0 from a decoded item: tag 17 or untagged (per `cborTag`); any other
    /// tag is `COSEError.wrongTag`.
    public init(cbor: CBOR, tag cborTag: COSETagRequirement = .optional) throws(COSEError) {
        let parts = try COSEMessageParts(
            cbor: cbor, tag: CBORTag.coseMac0, requirement: cborTag, lastName: "tag",
            structureError: { .notCOSEMac0($0) })
        protected = parts.protected
        unprotected = parts.unprotected
        payload = parts.payload
        tag = parts.last
    }

    /// Decodes a COSE_Mac0 from bytes (strict CBOR: no trailing bytes, no duplicate keys).
    public init(bytes: some ContiguousBytes, tag cborTag: COSETagRequirement = .optional) throws(COSEError) {
        try self.init(cbor: COSEMessageParts.decode(bytes), tag: cborTag)
    }

    /// The message bytes: tag 17 unless `tagged` is false. The protected bstr and the payload
    /// are written exactly as held; the unprotected map keeps its held order.
    public func encoded(tagged: Bool = true) -> Data {
        COSEMessageParts.encode(
            protected: protected, unprotected: unprotected, payload: payload, last: tag,
            tag: tagged ? CBORTag.coseMac0 : nil)
    }

    /// The message as a CBOR item: tag 17 unless `tagged` is false.
    public func cbor(tagged: Bool = true) -> CBOR {
        let array = CBOR.array([protected.cbor, unprotected.cbor, payload.map(CBOR.bytes) ?? .null, .bytes(tag)])
        return tagged ? .tagged(CBORTag.coseMac0, array) : array
    }

    /// The `MAC_structure` bytes this message's tag covers (RFC 9052 §6.3), built from the
    /// protected bytes as received.
    public func toBeMACed(externalAAD: Data = Data(), detachedPayload: Data? = nil) throws(COSEError) -> Data {
        let payload = try COSEToBeSigned.resolvePayload(attached: self.payload, detached: detachedPayload)
        return COSEToBeSigned.mac0(protected: protected.rawBytes, externalAAD: externalAAD, payload: payload)
    }

    /// The algorithm the message names, looked up where `options` allows (RFC 9052 §3.1).
    public func algorithm(options: COSEVerificationOptions = .strict) throws(COSEError) -> COSEAlgorithm {
        try options.algorithm(protected: protected.headers, unprotected: unprotected)
    }
}
