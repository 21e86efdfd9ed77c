import Foundation

/// The path checks both platforms share: signatures and name chaining, and validity at an injected instant.
///
/// Deliberately not an RFC 5280 policy (no basicConstraints or keyUsage on Android): factory-provisioned Android
/// intermediates may carry `cA FALSE` and still sign the leaf, and Android attestation rules accept them.
enum CertificatePath {
    /// Each certificate is signed by the next one's key and names the next one's subject as its issuer
    /// (RFC 5280 §6.1.3 (a)(1) and (a)(4)).
    static func linksAreValid(_ chain: [AttestationCertificate]) -> Bool {
        zip(chain, chain.dropFirst()).allSatisfy { isIssued($0, by: $1) }
    }

    /// `certificate` names `issuer`'s subject and verifies under its key.
    static func isIssued(_ certificate: AttestationCertificate, by issuer: AttestationCertificate) -> Bool {
        certificate.issuer == issuer.subject
            && CertificateSignature.isValid(certificate, issuerSPKI: issuer.subjectPublicKeyInfo)
    }

    /// `certificateExpired` if any certificate ended before `instant`, then `certificateNotYetValid` if any starts
    /// after it (RFC 5280 §6.1.3 (a)(2)); each at most once.
    static func validityFailures(_ chain: [AttestationCertificate], at instant: Date) -> [AttestationFailure] {
        var failures: [AttestationFailure] = []
        if chain.contains(where: { instant > $0.notAfter }) { failures.append(.certificateExpired) }
        if chain.contains(where: { instant < $0.notBefore }) { failures.append(.certificateNotYetValid) }
        return failures
    }
}
