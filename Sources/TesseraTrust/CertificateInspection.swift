import Foundation
import SwiftASN1
import X509

/// Small read-only helpers over swift-certificates' `Certificate` used by the rules.
extension Certificate {
    /// String values of one attribute type in the subject, in order.
    package func subjectValues(_ type: ASN1ObjectIdentifier) -> [String] {
        var values: [String] = []
        for rdn in subject {
            for attribute in rdn where attribute.type == type {
                values.append(String(attribute.value) ?? attribute.value.description)
            }
        }
        return values
    }

    /// Whether the subject has an attribute of `type` (no values rendered).
    func hasSubjectAttribute(_ type: ASN1ObjectIdentifier) -> Bool {
        subject.contains { rdn in rdn.contains { $0.type == type } }
    }

    /// Subject equals issuer.
    var isSelfIssued: Bool { subject == issuer }

    /// Whether `issuerCertificate`'s public key verifies this certificate's signature. Within one chain
    /// validation each (certificate, issuer) pair is verified once, however many rules and policies ask.
    func isSigned(by issuerCertificate: Certificate) -> Bool {
        guard let memo = SignatureMemo.current else {
            return issuerCertificate.publicKey.isValidSignature(signature, for: self)
        }
        return memo.result(for: self, issuer: issuerCertificate) {
            issuerCertificate.publicKey.isValidSignature(signature, for: self)
        }
    }

    /// Validity length in whole days.
    var validityDays: Int {
        Int((notValidAfter.timeIntervalSince(notValidBefore) / 86_400).rounded(.down))
    }
}

/// Result of reading an extension: absent, present and decoded, or present but undecodable.
enum ExtensionLookup<Value> {
    case absent
    case present(Value, critical: Bool)
    case malformed(String)

    init(_ certificate: borrowing Certificate, _ oid: ASN1ObjectIdentifier, decode: (Certificate.Extension) throws -> Value) {
        guard let ext = certificate.extensions[oid: oid] else {
            self = .absent
            return
        }
        do {
            self = .present(try decode(ext), critical: ext.critical)
        } catch {
            self = .malformed(String(describing: error))
        }
    }
}

enum KeyUsageNames {
    /// `{digitalSignature, keyCertSign}` style rendering.
    static func of(_ usage: KeyUsage) -> String {
        var names: [String] = []
        if usage.digitalSignature { names.append("digitalSignature") }
        if usage.nonRepudiation { names.append("nonRepudiation") }
        if usage.keyEncipherment { names.append("keyEncipherment") }
        if usage.dataEncipherment { names.append("dataEncipherment") }
        if usage.keyAgreement { names.append("keyAgreement") }
        if usage.keyCertSign { names.append("keyCertSign") }
        if usage.cRLSign { names.append("cRLSign") }
        if usage.encipherOnly { names.append("encipherOnly") }
        if usage.decipherOnly { names.append("decipherOnly") }
        return "{" + names.joined(separator: ", ") + "}"
    }

    /// Whether every bit set in `required` is set in `usage`.
    static func contains(_ usage: KeyUsage, _ required: KeyUsage) -> Bool {
        (!required.digitalSignature || usage.digitalSignature)
            && (!required.nonRepudiation || usage.nonRepudiation)
            && (!required.keyEncipherment || usage.keyEncipherment)
            && (!required.dataEncipherment || usage.dataEncipherment)
            && (!required.keyAgreement || usage.keyAgreement)
            && (!required.keyCertSign || usage.keyCertSign)
            && (!required.cRLSign || usage.cRLSign)
            && (!required.encipherOnly || usage.encipherOnly)
            && (!required.decipherOnly || usage.decipherOnly)
    }
}

/// Signature results of one chain validation, so that no signature is verified twice: the link signatures
/// swift-certificates' `Verifier` checked while building the chain, the anchors' self-signatures (checked once per
/// `TrustAnchors`), and whatever a rule verified itself. Scoped to one validation (a task-local), so nothing
/// outlives the instant and anchors it was computed for.
///
/// Entries are looked up linearly by the certificates' bytes: a path holds a handful of links, and certificates of
/// one validation share their storage, so a comparison is usually a pointer check. Hashing a certificate or public
/// key (the previous design) cost more than the lookups it saved.
final class SignatureMemo: @unchecked Sendable {
    @TaskLocal static var current: SignatureMemo?

    /// A link, identified by the signed bytes and signature of the certificate and the signed bytes (which hold
    /// the key) of its issuer: a few references to copy, where a whole `Certificate` holds dozens.
    private struct Entry {
        let signedBytes: ArraySlice<UInt8>
        let signature: Certificate.Signature
        let issuerSignedBytes: ArraySlice<UInt8>
        let isValid: Bool

        init(_ certificate: borrowing Certificate, issuer: borrowing Certificate, isValid: Bool) {
            signedBytes = certificate.tbsCertificateBytes
            signature = certificate.signature
            issuerSignedBytes = issuer.tbsCertificateBytes
            self.isValid = isValid
        }

        func isLink(_ certificate: borrowing Certificate, issuer: borrowing Certificate) -> Bool {
            signedBytes == certificate.tbsCertificateBytes && issuerSignedBytes == issuer.tbsCertificateBytes
                && signature == certificate.signature
        }
    }

    /// The anchors of this validation, where their self-signatures and profile conformance are known (each
    /// established at most once per set of anchors).
    let anchors: TrustAnchors?
    private let lock = NSLock()
    private var entries: [Entry] = []

    init(anchors: TrustAnchors? = nil) {
        self.anchors = anchors
    }

    /// Records links whose signatures were verified elsewhere: each certificate of `chain` (leaf first) is signed
    /// by the next one's key.
    func recordVerifiedLinks(_ chain: [Certificate]) {
        guard chain.count > 1 else { return }
        lock.lock()
        defer { lock.unlock() }
        for index in chain.indices.dropLast() where !entries.contains(where: { $0.isLink(chain[index], issuer: chain[index + 1]) }) {
            entries.append(Entry(chain[index], issuer: chain[index + 1], isValid: true))
        }
    }

    func result(for certificate: Certificate, issuer: Certificate, compute: () -> Bool) -> Bool {
        lock.lock()
        if let known = entries.first(where: { $0.isLink(certificate, issuer: issuer) }) {
            lock.unlock()
            return known.isValid
        }
        lock.unlock()
        let value = anchors?.knownSelfSignature(of: certificate, issuer: issuer) ?? compute()
        lock.lock()
        entries.append(Entry(certificate, issuer: issuer, isValid: value))
        lock.unlock()
        return value
    }
}
