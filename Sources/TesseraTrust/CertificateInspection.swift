import Foundation
import SwiftASN1
import X509

/// Small read-only helpers over swift-certificates' `Certificate` used by the rules.
extension Certificate {
    /// String values of one attribute type in the subject, in order.
    func subjectValues(_ type: ASN1ObjectIdentifier) -> [String] {
        subject.flatMap { rdn in rdn.filter { $0.type == type } }.map { String($0.value) ?? $0.value.description }
    }

    /// Subject equals issuer.
    var isSelfIssued: Bool { subject == issuer }

    /// Whether `issuerCertificate`'s public key verifies this certificate's signature. Within one chain
    /// validation each (certificate, issuer key) pair is verified once, however many rules and policies ask.
    func isSigned(by issuerCertificate: Certificate) -> Bool {
        guard let memo = SignatureMemo.current else {
            return issuerCertificate.publicKey.isValidSignature(signature, for: self)
        }
        return memo.result(for: self, issuerKey: issuerCertificate.publicKey) {
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

    init(_ certificate: Certificate, _ oid: ASN1ObjectIdentifier, decode: (Certificate.Extension) throws -> Value) {
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

/// Signature results of one chain validation: the direct Annex B rules and the same rules run as
/// `VerifierPolicy` inside swift-certificates' `Verifier` check the same links, and an ECDSA
/// verification costs far more than a lookup. Scoped to one validation (a task-local), so nothing
/// outlives the instant and anchors it was computed for.
final class SignatureMemo: @unchecked Sendable {
    @TaskLocal static var current: SignatureMemo?

    private struct Key: Hashable {
        let certificate: Certificate
        let issuerKey: Certificate.PublicKey
    }

    private let lock = NSLock()
    private var results: [Key: Bool] = [:]

    func result(for certificate: Certificate, issuerKey: Certificate.PublicKey, compute: () -> Bool) -> Bool {
        let key = Key(certificate: certificate, issuerKey: issuerKey)
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
