import Foundation
import SwiftASN1
import X509

/// The certificates a verifier trusts as roots: IACA roots for Document Signer chains, reader roots for reader
/// authentication chains. Keep the two sets apart; a reader root must never anchor a Document Signer.
public struct TrustAnchors: Sendable, Hashable {
    /// The anchors, in the order given.
    public let certificates: [Certificate]

    public init(_ certificates: [Certificate]) {
        self.certificates = certificates
    }

    /// Anchors from DER-encoded certificates.
    public init(derCertificates: [Data]) throws(TrustError) {
        var parsed: [Certificate] = []
        for (index, der) in derCertificates.enumerated() {
            do {
                parsed.append(try Certificate(derEncoded: Array(der)))
            } catch {
                throw .malformedTrustAnchor(index: index, reason: String(describing: error))
            }
        }
        self.certificates = parsed
    }

    /// Anchors from a PEM bundle: every `CERTIFICATE` block, in order; other blocks (e.g. keys) are ignored.
    /// Throws `.invalidPEM` when the text holds no certificate.
    public init(pemBundle: String) throws(TrustError) {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: pemBundle)
        } catch {
            throw .invalidPEM(reason: String(describing: error))
        }
        let blocks = documents.filter { $0.discriminator == Certificate.defaultPEMDiscriminator }
        guard !blocks.isEmpty else { throw .invalidPEM(reason: "no CERTIFICATE block") }
        var parsed: [Certificate] = []
        for (index, block) in blocks.enumerated() {
            do {
                parsed.append(try Certificate(derEncoded: block.derBytes))
            } catch {
                throw .malformedTrustAnchor(index: index, reason: String(describing: error))
            }
        }
        self.certificates = parsed
    }

    public var isEmpty: Bool { certificates.isEmpty }

    /// The anchor equal to `certificate` (same DER, or same subject and public key), if any.
    func anchor(matching certificate: Certificate) -> Certificate? {
        certificates.first { $0 == certificate || ($0.subject == certificate.subject && $0.publicKey == certificate.publicKey) }
    }

    /// The anchor that issued `certificate`: subject equal to its issuer, preferring one whose key verifies its
    /// signature (then one whose subjectKeyIdentifier matches its authorityKeyIdentifier).
    func issuer(of certificate: Certificate) -> Certificate? {
        let named = certificates.filter { $0.subject == certificate.issuer }
        if let signer = named.first(where: { certificate.isSigned(by: $0) }) {
            return signer
        }
        let aki = (try? certificate.extensions.authorityKeyIdentifier)?.keyIdentifier
        if let aki, let matching = named.first(where: { (try? $0.extensions.subjectKeyIdentifier)?.keyIdentifier == aki }) {
            return matching
        }
        return named.first
    }
}
