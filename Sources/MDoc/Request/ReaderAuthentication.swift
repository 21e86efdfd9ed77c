import Foundation
import TesseraCBOR
import TesseraCOSE
import TesseraTrust
import X509

/// Reader authentication (§9.1.4): `ReaderAuth` is a COSE_Sign1 whose detached payload is
/// `ReaderAuthenticationBytes = #6.24(bstr .cbor ["ReaderAuthentication", SessionTranscript,
/// ItemsRequestBytes])`, with the reader certificate chain in x5chain.
public enum ReaderAuthentication {
    /// `ReaderAuthenticationBytes`, built from the transcript and ItemsRequest bytes exactly as exchanged.
    public static func bytes(sessionTranscript: SessionTranscript, itemsRequestBytes: Data) -> Data {
        CBOR.encodeTag24Array([.text("ReaderAuthentication"), .encoded(sessionTranscript.bytes), .tag24(itemsRequestBytes)])
    }

    /// Signs a DocRequest's ItemsRequest as the reader.
    public static func sign(
        itemsRequest: EncodedCBOR<ItemsRequest>, sessionTranscript: SessionTranscript, readerKey: COSESigningKey,
        certificateChain: [Data]
    ) throws(MDocError) -> COSESign1 {
        let payload = bytes(sessionTranscript: sessionTranscript, itemsRequestBytes: itemsRequest.bytes)
        do {
            return try COSESign1.sign(
                payload: payload, with: readerKey, unprotected: COSEHeaders(x5chain: certificateChain), detached: true)
        } catch {
            throw .cose(structure: "ReaderAuth", error)
        }
    }
}

/// What the holder learned about the reader from one DocRequest's ReaderAuth (§9.1.4).
public struct ReaderAuthenticationOutcome: Sendable {
    /// The reader certificate (x5chain leaf), when it could be read: its subject is the reader's identity.
    public var readerCertificate: Certificate?
    /// Every failure found; empty when the chain and signature both verify.
    public var errors: [MDocError]
    /// True when `errors` is empty.
    public var isValid: Bool { errors.isEmpty }
}

extension ReaderAuthentication {
    /// Verifies a DocRequest's ReaderAuth: the reader chain to a trusted reader root under Annex B at
    /// `instant` (every link), and the signature over ReaderAuthenticationBytes with the leaf key.
    public static func verify(
        _ docRequest: DocRequest, sessionTranscript: SessionTranscript, readerRoots: TrustAnchors, at instant: Date
    ) async -> ReaderAuthenticationOutcome {
        guard let readerAuth = docRequest.readerAuth else {
            return ReaderAuthenticationOutcome(readerCertificate: nil, errors: [.readerAuthInvalid(reason: "no readerAuth")])
        }
        let chain = readerAuth.unprotected.x5chain ?? readerAuth.protected.headers.x5chain ?? []
        guard !chain.isEmpty else {
            return ReaderAuthenticationOutcome(readerCertificate: nil, errors: [.readerAuthInvalid(reason: "no x5chain")])
        }
        let outcome = await validateReaderChain(chain, anchors: readerRoots, at: instant)
        var errors = outcome.failures.map { MDocError.readerChainInvalid($0) }
        let leaf = outcome.leaf ?? (try? Certificate(derEncoded: Array(chain[0])))
        if let leaf {
            let payload = bytes(sessionTranscript: sessionTranscript, itemsRequestBytes: docRequest.itemsRequest.bytes)
            do {
                try readerAuth.verify(with: MDocVerifier.verificationKey(leaf), detachedPayload: payload)
            } catch {
                errors.append(.readerAuthInvalid(reason: "signature does not verify with the reader certificate key"))
            }
        } else {
            errors.append(.readerAuthInvalid(reason: "reader certificate cannot be read"))
        }
        return ReaderAuthenticationOutcome(readerCertificate: leaf, errors: errors)
    }
}
