import Crypto
import Foundation
import SwiftASN1
import TesseraCBOR
import TesseraCOSE
import X509

/// Verifies App Attest attestation objects and assertions (Apple developer documentation, "Validating apps that
/// connect to your server").
///
/// Attestation rules, checked in this order (the order of `failures`), one failure per rule:
/// 1. Step 1: x5c chains to a trusted root by signatures and names, every intermediate a CA
///    (`certificateChainInvalid`, `untrustedRoot`), and every certificate, root included, is valid at the instant
///    (`certificateExpired`, `certificateNotYetValid`).
/// 2. Steps 2–4: the credCert nonce extension equals SHA-256(authData ‖ clientDataHash) (`nonceMismatch`).
/// 3. Steps 5 and 9: SHA-256 of the credCert public key point equals the keyId and the credentialId
///    (`keyIDMismatch`).
/// 4. Step 6: rpIdHash is SHA-256 of a configured App ID (`appIDMismatch`).
/// 5. Step 7: the counter is 0 (`counterNotZero`).
/// 6. Step 8: the aaguid names an allowed environment (`environmentNotAllowed`).
/// 7. The credential public key (COSE_Key) in authData is the credCert key (`publicKeyMismatch`).
/// 8. iOS 27+: the launch validation category in the authenticator data's extensions is one the policy accepts
///    (`validationCategoryNotAllowed`).
///
/// Undecodable input (CBOR, certificates, authenticator data, the nonce extension) gives only `malformed`.
public struct AppAttestVerifier: Sendable {
    public let policy: AppAttestPolicy
    /// The policy's roots, parsed once.
    private let roots: [AttestationCertificate]

    private static let basicConstraints: ASN1ObjectIdentifier = [2, 5, 29, 19]
    private static let extendedKeyUsage: ASN1ObjectIdentifier = [2, 5, 29, 37]

    public init(policy: AppAttestPolicy) {
        self.policy = policy
        roots = policy.trustedRoots.compactMap { root in
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(root)) != nil else { return nil }
            return try? AttestationCertificate(der: Data(serializer.serializedBytes))
        }
    }

    /// - Parameters:
    ///   - attestationObject: the CBOR attestation object the app sent.
    ///   - clientDataHash: SHA-256 of the client data the app passed to `attestKey` (the server's challenge).
    ///   - keyID: the key identifier the app sent (the raw 32 bytes, not its base64 spelling).
    ///   - instant: the time at which every certificate must be valid.
    public func verifyAttestation(
        _ attestationObject: Data, clientDataHash: Data, keyID: Data, at instant: Date
    ) -> AttestationOutcome<AppAttestAttestation> {
        let object: AppAttestAttestationObject
        var path: [AttestationCertificate] = []
        let credential: AppAttestAuthenticatorData.AttestedCredential
        let nonce: Data
        let publicKey: P256.Signing.PublicKey
        let extendedKeyUsages: [String]
        do throws(AttestationParseError) {
            object = try AppAttestAttestationObject(attestationObject)
            guard let attested = object.authenticatorData.attestedCredential else {
                throw AttestationParseError("authenticator data has no attested credential data")
            }
            credential = attested
            for der in object.x5c { path.append(try AttestationCertificate(der: der)) }
            guard let credentialCertificate = path.first else { throw AttestationParseError("x5c is empty") }
            nonce = try AppAttestNonce.value(in: credentialCertificate)
            guard let key = try? P256.Signing.PublicKey(derRepresentation: credentialCertificate.subjectPublicKeyInfo)
            else { throw AttestationParseError("the credential certificate's key is not an EC P-256 key") }
            publicKey = key
            extendedKeyUsages = try Self.purposes(of: credentialCertificate)
        } catch {
            return AttestationOutcome(
                facts: nil, failures: [.malformed], diagnostics: [AttestationDiagnostic(.malformed, error.description)])
        }
        let authenticatorData = object.authenticatorData
        var failures = chainFailures(path, at: instant)
        var diagnostics: [AttestationDiagnostic] = []
        if Data(SHA256.hash(data: authenticatorData.bytes + clientDataHash)) != nonce { failures.append(.nonceMismatch) }
        let proven = Data(SHA256.hash(data: publicKey.x963Representation))
        if proven != keyID || credential.credentialID != keyID { failures.append(.keyIDMismatch) }
        let app = policy.app(rpIDHash: authenticatorData.rpIDHash)
        if app == nil { failures.append(.appIDMismatch) }
        if authenticatorData.counter != 0 { failures.append(.counterNotZero) }
        let environment = AppAttestEnvironment(aaguid: credential.aaguid)
        if !(environment.map(policy.allowedEnvironments.contains) ?? false) {
            failures.append(.environmentNotAllowed)
            if environment == nil {
                diagnostics.append(AttestationDiagnostic(.environmentNotAllowed, "the aaguid names no App Attest environment"))
            }
        }
        if !Self.coseKey(credential.credentialPublicKey, equals: publicKey) { failures.append(.publicKeyMismatch) }
        if !policy.validationCategories.allows(authenticatorData.extensions?.validationCategory) {
            failures.append(.validationCategoryNotAllowed)
        }

        let facts = AppAttestAttestation(
            keyID: proven, publicKey: publicKey, app: app, environment: environment,
            counter: authenticatorData.counter, receipt: object.receipt, extensions: authenticatorData.extensions,
            certificateExtensions: path.first?.extensions.map(\.oid.description) ?? [], extendedKeyUsages: extendedKeyUsages)
        return AttestationOutcome(facts: facts, failures: failures, diagnostics: diagnostics)
    }

    /// Step 1: links within x5c (intermediates must be CAs), the anchor, then validity of x5c and the anchor.
    private func chainFailures(_ x5c: [AttestationCertificate], at instant: Date) -> [AttestationFailure] {
        var path = x5c
        // A sender may include the root itself; it is then the anchor, not part of the path.
        if let last = path.last, path.count > 1, roots.contains(where: { $0.der == last.der }) { path.removeLast() }
        var failures: [AttestationFailure] = []
        if !CertificatePath.linksAreValid(path) || !path.dropFirst().allSatisfy(isCertificateAuthority) {
            failures.append(.certificateChainInvalid)
        }
        let anchor = path.last.flatMap { top in
            roots.first { $0.der == top.der || CertificatePath.isIssued(top, by: $0) }
        }
        if anchor == nil { failures.append(.untrustedRoot) }
        failures += CertificatePath.validityFailures(path + [anchor].compactMap { $0 }, at: instant)
        return failures
    }

    /// extendedKeyUsage (RFC 5280 §4.2.1.12): the purposes as dotted OIDs; empty without the extension.
    private static func purposes(of certificate: AttestationCertificate) throws(AttestationParseError) -> [String] {
        guard let ext = try certificate.uniqueExtension(extendedKeyUsage) else { return [] }
        do {
            var purposes = try DERNodes.sequence(try DER.parse(Array(ext.value)), "ExtKeyUsageSyntax")
            var result: [String] = []
            while let node = purposes.next() { result.append(try ASN1ObjectIdentifier(derEncoded: node).description) }
            return result
        } catch let error as AttestationParseError {
            throw error
        } catch {
            throw AttestationParseError("extendedKeyUsage is not DER: \(error)")
        }
    }

    /// basicConstraints (RFC 5280 §4.2.1.9) with cA TRUE.
    private func isCertificateAuthority(_ certificate: AttestationCertificate) -> Bool {
        guard let ext = try? certificate.uniqueExtension(Self.basicConstraints),
            let node = try? DER.parse(Array(ext.value)),
            var fields = try? DERNodes.sequence(node, "BasicConstraints"),
            let first = fields.next(), first.identifier == .boolean
        else { return false }
        return (try? Bool(derEncoded: first)) ?? false
    }

    /// Whether a COSE_Key (RFC 9053 §7.1.1, EC2 P-256) is the same point as `publicKey`.
    static func coseKey(_ value: CBOR, equals publicKey: P256.Signing.PublicKey) -> Bool {
        guard let key = try? COSEKey(cbor: value), case .ec2(.p256, let x, let y, nil) = key.material else { return false }
        return Data([0x04]) + x + y == publicKey.x963Representation
    }
}
