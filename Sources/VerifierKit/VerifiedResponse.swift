import Foundation
import MDoc
import TesseraCBOR

/// A verified DeviceResponse: the documents whose issuer and device authentication passed, and what the
/// holder chose not to return (withholding is allowed, §8.3.2.1.2.2, so it is reported, not failed).
public struct VerifiedResponse: Sendable {
    /// The documents that passed issuer data authentication (§9.1.2) and mdoc authentication (§9.1.3).
    public let documents: [VerifiedDocument]
    /// Completeness failures only: requested elements or documents not returned.
    public let notReturned: [MDocError]
    /// Bytes of the SessionEstablishment and SessionData messages, for reporting.
    public let requestBytes: Int
    /// Bytes of the holder's SessionData message.
    public let responseBytes: Int

    /// A result from its parts; ``VerifierOrchestrator`` builds it when verification succeeded.
    public init(documents: [VerifiedDocument], notReturned: [MDocError], requestBytes: Int, responseBytes: Int) {
        self.documents = documents
        self.notReturned = notReturned
        self.requestBytes = requestBytes
        self.responseBytes = responseBytes
    }

    /// docType → namespace → element → value, issuer-signed elements only.
    public var elements: [String: [String: [String: CBOR]]] {
        var result: [String: [String: [String: CBOR]]] = [:]
        for document in documents {
            result[document.docType, default: [:]].merge(document.issuerSignedElements) { $0.merging($1) { a, _ in a } }
        }
        return result
    }
}
