import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import X509

extension AndroidTestAttestationAuthority {
    /// A signer for test integrity tokens (the stand-in for Play Integrity verdicts on Linux): a fresh P-256 key
    /// and its certificate under the intermediate, valid for an hour around `instant`. `chain` is `[leaf,
    /// intermediate]` (DER), the `x5c` of the token; the root is the verifier's trust anchor.
    public func integritySigner(at instant: Date) throws(DeviceAttestationError) -> (key: P256.Signing.PrivateKey, chain: [Data]) {
        let key = P256.Signing.PrivateKey()
        do {
            let leaf = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: instant.addingTimeInterval(-300), notValidAfter: instant.addingTimeInterval(3600),
                issuer: intermediateCertificate.subject,
                subject: try DistinguishedName { CommonName("Test Integrity Verdict Signer") },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                },
                issuerPrivateKey: .init(intermediateKey))
            return (key, [try Self.der(leaf), try Self.der(intermediateCertificate)])
        } catch {
            throw .issuanceFailed("creating the integrity signer certificate: \(error)")
        }
    }
}
