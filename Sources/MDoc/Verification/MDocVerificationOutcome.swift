import Foundation
import TesseraCBOR
import X509

/// What the reader learned from a DeviceResponse: every failure found, never just the first
/// (isomdl once returned on the first check and skipped digests and validity).
public struct MDocVerificationOutcome: Sendable {
    /// Failures that concern the response as a whole (status, documentErrors, missing documents).
    public var errors: [MDocError]
    /// One entry per Document returned, in the order received.
    public var documents: [VerifiedDocument]

    /// An outcome; `MDocVerifier.verify` builds it.
    public init(errors: [MDocError], documents: [VerifiedDocument]) {
        self.errors = errors
        self.documents = documents
    }

    /// True when neither the response nor any document has a failure.
    public var isValid: Bool { errors.isEmpty && documents.allSatisfy(\.isValid) }

    /// True when everything returned is genuine, even if some requested data was not returned
    /// (the holder may withhold elements; §8.3.2.1.2.2 lets it).
    public var isAuthentic: Bool { allErrors.allSatisfy(\.isCompletenessFailure) }

    /// Every failure, response-level first.
    public var allErrors: [MDocError] { errors + documents.flatMap(\.errors) }
}

/// One Document as verified.
public struct VerifiedDocument: Sendable {
    /// The Document's docType as received.
    public var docType: String
    /// Issuer-signed elements whose digest and type checked out (namespace → element → value), only
    /// when the issuer signature verified and the document signer chain is trusted; empty otherwise.
    public var issuerSignedElements: [String: [String: CBOR]]
    /// Device-signed elements (namespace → element → value), present only if device authentication passed.
    public var deviceSignedElements: [String: [String: CBOR]]
    /// The MSO's ValidityInfo, when the MSO could be read (also when it failed the check).
    public var validityInfo: ValidityInfo?
    /// The document signer certificate (x5chain leaf), when it could be read.
    public var documentSigner: Certificate?
    /// Every failure found in this document; empty when it verified.
    public var errors: [MDocError]

    /// True when `errors` is empty.
    public var isValid: Bool { errors.isEmpty }
}
