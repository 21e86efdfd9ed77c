import Foundation
import SwiftASN1
import X509

/// The certificates a verifier trusts as roots: IACA roots for Document Signer chains, reader roots for reader
/// authentication chains. Keep the two sets apart; a reader root must never anchor a Document Signer.
public struct TrustAnchors: Sendable, Hashable {
    /// The anchors, in the order given.
    public let certificates: [Certificate]
    /// Each anchor's self-signature (B.1.2) and profile conformance, established once for this set of anchors
    /// (copies share them) rather than once per chain validated against it.
    private let facts = AnchorFacts()

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
        self.init(parsed)
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
        self.init(parsed)
    }

    public static func == (lhs: TrustAnchors, rhs: TrustAnchors) -> Bool { lhs.certificates == rhs.certificates }
    public func hash(into hasher: inout Hasher) { hasher.combine(certificates) }

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

    /// Whether `certificate` verifies with its own key, when it is one of these anchors asked about itself
    /// (`issuer` equal to it); nil otherwise. Verified on first use, then remembered.
    func knownSelfSignature(of certificate: Certificate, issuer: Certificate) -> Bool? {
        guard certificate == issuer, let index = certificates.firstIndex(of: certificate) else { return nil }
        return facts.result(for: AnchorFacts.Key(anchor: index, fact: .selfSignature)) {
            certificate.publicKey.isValidSignature(certificate.signature, for: certificate)
        }
    }

    /// Whether `certificate`, when it is one of these anchors, meets the anchor profile `profile` under `options`:
    /// `check` runs on first use, then the answer is remembered; nil when `certificate` is not one of these anchors.
    /// Sound because an anchor profile reads the anchor alone, never the path below it.
    func knownConformance(
        of certificate: Certificate,
        to profile: CertificateProfile,
        options: AnnexBOptions,
        check: () -> Bool
    ) -> Bool? {
        guard let index = certificates.firstIndex(of: certificate) else { return nil }
        return facts.result(for: AnchorFacts.Key(anchor: index, fact: .conforms(profile, options)), compute: check)
    }
}

/// Facts about the anchors that hold on every path they end (self-signatures, profile conformance), established on
/// first use. A class so that copies of a `TrustAnchors` share them; lazy because x5c validation (JOSE) never needs
/// them and builds its anchors per call.
private final class AnchorFacts: @unchecked Sendable {
    struct Key: Hashable {
        enum Fact: Hashable {
            case selfSignature
            case conforms(CertificateProfile, AnnexBOptions)
        }

        let anchor: Int
        let fact: Fact
    }

    private let lock = NSLock()
    private var results: [Key: Bool] = [:]

    func result(for key: Key, compute: () -> Bool) -> Bool {
        lock.lock()
        if let known = results[key] {
            lock.unlock()
            return known
        }
        lock.unlock()
        let value = compute()
        lock.lock()
        results[key] = value
        lock.unlock()
        return value
    }
}
