import Crypto
import DeviceAttestation
import Foundation
import SwiftASN1
import TesseraCore
import X509

/// Issues real Android-format key attestation chains — a leaf with the KeyDescription extension
/// (1.3.6.1.4.1.11129.2.1.17), an intermediate and a root, all EC P-256 — for a Linux "test integrity service" and
/// for tests. A verifier trusts these chains only when the test root's key is given explicitly in
/// `AndroidAttestationPolicy.trustedRootKeys`; under the default Google roots they fail `untrustedRoot`.
///
/// The private keys are secrets of the test authority: export them only to protected storage, never log them.
public struct AndroidTestAttestationAuthority: Sendable {
    public let rootCertificate: Certificate
    public let intermediateCertificate: Certificate
    let rootKey: P256.Signing.PrivateKey
    let intermediateKey: P256.Signing.PrivateKey

    /// Android Keystore limits attestation challenges to 128 bytes.
    static let maxChallengeBytes = 128

    /// Resumes an authority. The certificates are expected to hold the keys' public halves (see `init(pem:)`, which
    /// checks it).
    public init(
        rootKey: P256.Signing.PrivateKey, rootCertificate: Certificate,
        intermediateKey: P256.Signing.PrivateKey, intermediateCertificate: Certificate
    ) {
        self.rootKey = rootKey
        self.rootCertificate = rootCertificate
        self.intermediateKey = intermediateKey
        self.intermediateCertificate = intermediateCertificate
    }

    /// A new root (`CN=commonName`) and intermediate (`CN=commonName Intermediate`), both valid from `notBefore` to
    /// `notAfter`. Keys and serial numbers come from `random`, or from the system's generator when it is nil.
    public static func generate(
        commonName: String, notBefore: Date, notAfter: Date, random: (any RandomSource)?
    ) throws(DeviceAttestationError) -> AndroidTestAttestationAuthority {
        guard !commonName.isEmpty else { throw .issuanceFailed("the common name is empty") }
        guard notBefore < notAfter else { throw .issuanceFailed("notBefore is not before notAfter") }
        let source = random ?? SystemRandomSource()
        let rootKey = try privateKey(source)
        let intermediateKey = try privateKey(source)
        do {
            let rootName = try DistinguishedName { CommonName(commonName) }
            let intermediateName = try DistinguishedName { CommonName(commonName + " Intermediate") }
            let root = try Certificate(
                version: .v3, serialNumber: serialNumber(source), publicKey: .init(rootKey.publicKey),
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: rootName,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: try authorityExtensions(rootKey.publicKey),
                issuerPrivateKey: .init(rootKey))
            let intermediate = try Certificate(
                version: .v3, serialNumber: serialNumber(source), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: intermediateName,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: try authorityExtensions(intermediateKey.publicKey),
                issuerPrivateKey: .init(rootKey))
            return AndroidTestAttestationAuthority(
                rootKey: rootKey, rootCertificate: root, intermediateKey: intermediateKey, intermediateCertificate: intermediate)
        } catch {
            throw .issuanceFailed("creating the authority certificates: \(error)")
        }
    }

    /// The root's SubjectPublicKeyInfo (DER), to put in `AndroidAttestationPolicy.trustedRootKeys`.
    public var rootPublicKeySPKI: Data { rootKey.publicKey.derRepresentation }

    /// A chain `[leaf, intermediate, root]` (DER) attesting `publicKey`: its KeyDescription carries `challenge`, the
    /// app (package name, version 1, signing digests), `securityLevel` as both security levels (TrustedEnvironment
    /// unless asked), a RootOfTrust of a locked device with Verified boot, and tags in ascending order, all in DER.
    /// The leaf is valid from `instant` (whole seconds) to the intermediate's end.
    public func attest(
        publicKey: P256.Signing.PublicKey, challenge: Data, application: AndroidApplication, at instant: Date,
        securityLevel: AndroidSecurityLevel = .trustedEnvironment
    ) throws(DeviceAttestationError) -> [Data] {
        guard challenge.count <= Self.maxChallengeBytes else {
            throw .issuanceFailed("the challenge is longer than \(Self.maxChallengeBytes) bytes")
        }
        let notBefore = Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))
        guard notBefore >= intermediateCertificate.notValidBefore, notBefore < intermediateCertificate.notValidAfter else {
            throw .issuanceFailed("the instant is outside the intermediate certificate's validity")
        }
        let rootSPKI = rootPublicKeySPKI
        let description = AndroidKeyDescriptionEncoder(
            challenge: challenge, application: application, creation: instant,
            verifiedBootKey: Data(SHA256.hash(data: Data("verifiedBootKey".utf8) + rootSPKI)),
            verifiedBootHash: Data(SHA256.hash(data: Data("verifiedBootHash".utf8) + rootSPKI)), securityLevel: securityLevel)
        do {
            let extensions = try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                Certificate.Extension(
                    oid: AndroidKeyDescription.oid, critical: false, value: ArraySlice(try description.encode()))
            }
            let leaf = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(1), publicKey: .init(publicKey),
                notValidBefore: notBefore, notValidAfter: intermediateCertificate.notValidAfter,
                issuer: intermediateCertificate.subject,
                subject: try DistinguishedName { CommonName("Android Keystore Key") },
                signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(intermediateKey))
            return try [leaf, intermediateCertificate, rootCertificate].map(Self.der)
        } catch {
            throw .issuanceFailed("creating the attestation certificate: \(error)")
        }
    }

    static func der(_ certificate: Certificate) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    /// basicConstraints cA TRUE and keyUsage keyCertSign + cRLSign (both critical), and a subjectKeyIdentifier.
    static func authorityExtensions(_ key: P256.Signing.PublicKey) throws -> Certificate.Extensions {
        try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            SubjectKeyIdentifier(hash: Certificate.PublicKey(key))
        }
    }

    /// A P-256 key whose scalar comes from `source` (drawn again in the astronomically rare case it is out of range).
    static func privateKey(_ source: any RandomSource) throws(DeviceAttestationError) -> P256.Signing.PrivateKey {
        for _ in 0..<16 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: source.bytes(32)) { return key }
        }
        throw .issuanceFailed("the random source produced no valid P-256 private key")
    }

    /// A positive 16-byte serial number (RFC 5280 §4.1.2.2: at most 20 octets).
    static func serialNumber(_ source: any RandomSource) -> Certificate.SerialNumber {
        var bytes = Array(source.bytes(16))
        if let first = bytes.first { bytes[0] = (first & 0x7F) | 0x01 }
        return Certificate.SerialNumber(bytes: bytes)
    }
}
