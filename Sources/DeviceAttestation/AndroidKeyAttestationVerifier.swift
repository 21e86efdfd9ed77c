import Foundation

/// Verifies an Android key attestation certificate chain (developer.android.com, "Verify hardware-backed key pairs
/// with key attestation"; source.android.com, "Key and ID attestation") against an `AndroidAttestationPolicy`.
///
/// Rules, checked in this order (the order of `failures`), one failure per rule:
/// 1. `certificateChainInvalid`: every certificate is signed by the next one's key and names it as issuer, and the
///    last one is self-signed. No RFC 5280 policy: old factory intermediates lack `cA`/keyCertSign yet sign leaves.
/// 2. `untrustedRoot`: the last certificate's public key is one of `trustedRootKeys`.
/// 3. `certificateExpired` / `certificateNotYetValid`: every certificate, leaf and root included, at `instant`.
/// 4. `revoked`: no serial number of the chain is on the revocation list.
/// 5. `malformedExtension`: the leaf, and only the leaf, carries one KeyDescription that decodes under the policy's
///    encoding. This failure ends the check: the rules below need the extension.
/// 6. `challengeMismatch` (byte for byte), `packageNameMismatch`, `signingCertificateMismatch`.
/// 7. `securityLevelTooLow`: attestation and KeyMint security levels are TrustedEnvironment or StrongBox.
/// 8. `rootOfTrustMissing`: hardwareEnforced has a RootOfTrust; then 9. `bootloaderUnlocked` (deviceLocked) and
///    `verifiedBootStateNotVerified`.
/// 10. `authorizationListTagsNotAscending` (strict encoding only).
///
/// Undecodable input (no certificates, a certificate that is not DER) gives only `malformed`.
public struct AndroidKeyAttestationVerifier: Sendable {
    public let policy: AndroidAttestationPolicy

    public init(policy: AndroidAttestationPolicy) { self.policy = policy }

    /// - Parameters:
    ///   - chain: DER certificates, leaf first, ending with the chain's root certificate.
    ///   - challenge: the challenge the server issued, compared with attestationChallenge byte for byte.
    ///   - instant: the time at which every certificate must be valid (injected; tests pin it).
    public func verify(chain: [Data], challenge: Data, at instant: Date) -> AttestationOutcome<AndroidKeyAttestation> {
        guard !chain.isEmpty, chain.count <= AttestationLimits.maxChainLength else {
            return malformed("the chain must hold 1 to \(AttestationLimits.maxChainLength) certificates")
        }
        var certificates: [AttestationCertificate] = []
        for (index, der) in chain.enumerated() {
            do {
                certificates.append(try AttestationCertificate(der: der))
            } catch {
                return malformed("certificate \(index): \(error.description)")
            }
        }
        guard let leaf = certificates.first, let root = certificates.last else { return malformed("empty chain") }

        var failures: [AttestationFailure] = []
        var diagnostics: [AttestationDiagnostic] = []
        if let broken = brokenLink(certificates) {
            failures.append(.certificateChainInvalid)
            diagnostics.append(AttestationDiagnostic(.certificateChainInvalid, broken))
        }
        if !policy.trustedRootKeys.contains(root.subjectPublicKeyInfo) { failures.append(.untrustedRoot) }
        failures += CertificatePath.validityFailures(certificates, at: instant)
        if certificates.contains(where: { policy.revocationList.contains(serial: $0.serialNumber) }) {
            failures.append(.revoked)
        }

        let description: AndroidKeyDescription
        do {
            description = try keyDescription(certificates)
        } catch {
            failures.append(.malformedExtension)
            diagnostics.append(AttestationDiagnostic(.malformedExtension, error.description))
            return AttestationOutcome(facts: nil, failures: failures, diagnostics: diagnostics)
        }
        let facts = AndroidKeyAttestation(leafPublicKeySPKI: leaf.subjectPublicKeyInfo, description: description)
        failures += policyFailures(facts, description, challenge: challenge)
        return AttestationOutcome(facts: facts, failures: failures, diagnostics: diagnostics)
    }

    /// Rules 6–10, over the decoded extension.
    private func policyFailures(
        _ facts: AndroidKeyAttestation, _ description: AndroidKeyDescription, challenge: Data
    ) -> [AttestationFailure] {
        var failures: [AttestationFailure] = []
        if facts.attestationChallenge != challenge { failures.append(.challengeMismatch) }
        let candidates = policy.applications.filter { facts.packageNames.contains($0.packageName) }
        if candidates.isEmpty {
            failures.append(.packageNameMismatch)
        } else if !candidates.contains(where: { $0.acceptsSigningDigests(facts.signingCertificateDigests) }) {
            failures.append(.signingCertificateMismatch)
        }
        if facts.attestationSecurityLevel == .software || facts.keyMintSecurityLevel == .software {
            failures.append(.securityLevelTooLow)
        }
        if let rootOfTrust = description.hardwareEnforced.rootOfTrust {
            if !rootOfTrust.deviceLocked { failures.append(.bootloaderUnlocked) }
            if rootOfTrust.verifiedBootState != .verified { failures.append(.verifiedBootStateNotVerified) }
        } else {
            failures.append(.rootOfTrustMissing)
        }
        if policy.encoding == .strict,
            !description.softwareEnforced.tagsAscending || !description.hardwareEnforced.tagsAscending
        {
            failures.append(.authorizationListTagsNotAscending)
        }
        return failures
    }

    /// The first broken link, described, or nil when every signature and name chains and the root is self-signed.
    private func brokenLink(_ chain: [AttestationCertificate]) -> String? {
        for index in chain.indices.dropLast() where !CertificatePath.isIssued(chain[index], by: chain[index + 1]) {
            return "certificate \(index) is not issued by certificate \(index + 1)"
        }
        if let root = chain.last, !CertificatePath.isIssued(root, by: root) {
            return "the last certificate is not self-signed"
        }
        return nil
    }

    /// The leaf's KeyDescription; the extension must appear once, and in no other certificate.
    private func keyDescription(_ chain: [AttestationCertificate]) throws(AttestationParseError) -> AndroidKeyDescription {
        for (index, certificate) in chain.enumerated().dropFirst()
        where certificate.extensions.contains(where: { $0.oid == AndroidKeyDescription.oid }) {
            throw AttestationParseError("certificate \(index) also carries the KeyDescription extension")
        }
        guard let leaf = chain.first, let ext = try leaf.uniqueExtension(AndroidKeyDescription.oid) else {
            throw AttestationParseError("the leaf has no KeyDescription extension (1.3.6.1.4.1.11129.2.1.17)")
        }
        return try AndroidKeyDescriptionParser(encoding: policy.encoding).parse(ext.value)
    }

    private func malformed(_ reason: String) -> AttestationOutcome<AndroidKeyAttestation> {
        AttestationOutcome(facts: nil, failures: [.malformed], diagnostics: [AttestationDiagnostic(.malformed, reason)])
    }
}
