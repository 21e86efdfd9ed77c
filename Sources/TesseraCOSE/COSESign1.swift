import Foundation
import TesseraCBOR

/// A COSE_Sign1 message (RFC 9052 §4.2):
/// `[protected: bstr, unprotected: header_map, payload: bstr / nil, signature: bstr]`,
/// tagged 18 or untagged.
///
/// The protected bstr and the payload are kept exactly as received and re-emitted unchanged
/// by `encoded(tagged:)`. A nil payload is detached (RFC 9052 §2) and must be supplied to
/// `verify`.
public struct COSESign1: Hashable, Sendable {
    /// The protected bucket with its bytes as received.
    public let protected: COSEProtectedHeader
    /// The unprotected bucket.
    public let unprotected: COSEHeaders
    /// The payload, or nil when detached.
    public let payload: Data?
    /// The signature bytes (for ECDSA, fixed-length `r‖s`).
    public let signature: Data

    /// A message from its parts; a label present in both buckets is rejected (RFC 9052 §3).
    public init(protected: COSEProtectedHeader, unprotected: COSEHeaders = COSEHeaders(), payload: Data?, signature: Data)
        throws(COSEError)
    {
        try COSEMessageParts.checkBuckets(protected.headers, unprotected)
        self.protected = protected
        self.unprotected = unprotected
        self.payload = payload
        self.signature = signature
    }

    /// Reads a COSE_Sign1 from a decoded item: tag 18 or untagged (per `tag`); any other tag
    /// is `COSEError.wrongTag`.
    public init(cbor: CBOR, tag: COSETagRequirement = .optional) throws(COSEError) {
        let parts = try COSEMessageParts(
            cbor: cbor, tag: CBORTag.coseSign1, requirement: tag, lastName: "signature",
            structureError: { .notCOSESign1($0) })
        protected = parts.protected
        unprotected = parts.unprotected
        payload = parts.payload
        signature = parts.last
    }

    /// Decodes a COSE_Sign1 from bytes (strict CBOR: no trailing bytes, no duplicate keys).
    public init(bytes: some ContiguousBytes, tag: COSETagRequirement = .optional) throws(COSEError) {
        try self.init(cbor: COSEMessageParts.decode(bytes), tag: tag)
    }

    /// The message bytes: tag 18 unless `tagged` is false. The protected bstr and the payload
    /// are written exactly as held; the unprotected map keeps its held order.
    public func encoded(tagged: Bool = true) -> Data {
        COSEMessageParts.encode(
            protected: protected, unprotected: unprotected, payload: payload, last: signature,
            tag: tagged ? CBORTag.coseSign1 : nil)
    }

    /// The message as a CBOR item: tag 18 unless `tagged` is false.
    public func cbor(tagged: Bool = true) -> CBOR {
        let array = CBOR.array([protected.cbor, unprotected.cbor, payload.map(CBOR.bytes) ?? .null, .bytes(signature)])
        return tagged ? .tagged(CBORTag.coseSign1, array) : array
    }

    /// The `Sig_structure` bytes this message's signature covers (RFC 9052 §4.4), built from the
    /// protected bytes as received.
    public func toBeSigned(externalAAD: Data = Data(), detachedPayload: Data? = nil) throws(COSEError) -> Data {
        let payload = try COSEToBeSigned.resolvePayload(attached: self.payload, detached: detachedPayload)
        return COSEToBeSigned.signature1(bodyProtected: protected.rawBytes, externalAAD: externalAAD, payload: payload)
    }

    /// The algorithm the message names, looked up where `options` allows (RFC 9052 §3.1).
    public func algorithm(options: COSEVerificationOptions = .strict) throws(COSEError) -> COSEAlgorithm {
        try options.algorithm(protected: protected.headers, unprotected: unprotected)
    }
}
