import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// Checks that an issuer's key signed a certificate (RFC 5280 §6.1.3 (a)(1)), with swift-certificates' public key
/// types: ECDSA (P-256, P-384, P-521) with SHA-256/384/512, RSA PKCS #1 v1.5 with SHA-256/384/512, and Ed25519.
/// SHA-1 signatures are not accepted.
///
/// RSA keys of 1024 bits and more are loaded: Google's software-attestation chain uses RSA-1024 keys, and the
/// vectors expect its signatures to verify (its root is not trusted, so it still fails `untrustedRoot`). Trust
/// comes from the root key, and the Google root keys are RSA-4096 and P-384.
enum CertificateSignature {
    static func isValid(_ certificate: AttestationCertificate, issuerSPKI: Data) -> Bool {
        guard let algorithm = signatureAlgorithm(certificate.signatureAlgorithm),
            let key = publicKey(issuerSPKI)
        else { return false }
        return key.isValidSignature(certificate.signature, for: certificate.tbsCertificate, signatureAlgorithm: algorithm)
    }

    /// A public key swift-certificates can verify with; nil for any other key type (e.g. ML-DSA).
    static func publicKey(_ spki: Data) -> Certificate.PublicKey? {
        guard let node = try? DER.parse(Array(spki)) else { return nil }
        if let key = try? Certificate.PublicKey(derEncoded: node) { return key }
        // swift-certificates refuses RSA keys under 2048 bits; _CryptoExtras loads them on request.
        return (try? _RSA.Signing.PublicKey(unsafeDERRepresentation: spki)).map(Certificate.PublicKey.init)
    }

    private static func signatureAlgorithm(_ oid: ASN1ObjectIdentifier) -> Certificate.SignatureAlgorithm? {
        switch oid {
        case [1, 2, 840, 10045, 4, 3, 2]: return .ecdsaWithSHA256
        case [1, 2, 840, 10045, 4, 3, 3]: return .ecdsaWithSHA384
        case [1, 2, 840, 10045, 4, 3, 4]: return .ecdsaWithSHA512
        case [1, 2, 840, 113549, 1, 1, 11]: return .sha256WithRSAEncryption
        case [1, 2, 840, 113549, 1, 1, 12]: return .sha384WithRSAEncryption
        case [1, 2, 840, 113549, 1, 1, 13]: return .sha512WithRSAEncryption
        case [1, 3, 101, 112]: return .ed25519
        default: return nil
        }
    }
}
