import Foundation
import TesseraTrust
import SwiftASN1
import X509

/// What to put in a certificate of a generic (non-Annex B) test chain for JOSE `x5c` headers.
public struct X5CCertificateRequest: Sendable {
    public var commonName: String
    public var organization: String?
    /// basicConstraints cA (critical). A CA gets keyUsage {keyCertSign, cRLSign} unless `keyUsage` says otherwise.
    public var isCertificateAuthority: Bool
    /// keyUsage (critical); nil gives the default ({digitalSignature} for an end entity). Set `omitKeyUsage` to
    /// leave the extension out.
    public var keyUsage: KeyUsage?
    public var omitKeyUsage: Bool
    /// subjectAltName entries (e.g. `.dnsName("verifier.example.org")` for `x509_san_dns` client identifiers).
    public var subjectAlternativeNames: [GeneralName]
    public var notBefore: Date
    public var notAfter: Date
    public var keyAlgorithm: SigningKeyAlgorithm
    /// The certificate's key; generated from the random source when nil.
    public var key: SigningKey?
    /// Further extensions, appended as given (e.g. to test a critical extension nobody handles).
    public var extraExtensions: [Certificate.Extension]

    public init(
        commonName: String,
        organization: String? = nil,
        isCertificateAuthority: Bool = false,
        keyUsage: KeyUsage? = nil,
        omitKeyUsage: Bool = false,
        subjectAlternativeNames: [GeneralName] = [],
        notBefore: Date,
        notAfter: Date,
        keyAlgorithm: SigningKeyAlgorithm = .p256,
        key: SigningKey? = nil,
        extraExtensions: [Certificate.Extension] = []
    ) {
        self.commonName = commonName
        self.organization = organization
        self.isCertificateAuthority = isCertificateAuthority
        self.keyUsage = keyUsage
        self.omitKeyUsage = omitKeyUsage
        self.subjectAlternativeNames = subjectAlternativeNames
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.keyAlgorithm = keyAlgorithm
        self.key = key
        self.extraExtensions = extraExtensions
    }
}

/// Creates plain RFC 5280 certificates (root, intermediates, signing leaf) for tests and demos of JOSE `x5c`
/// chains. Time and randomness are injected through the request and the generator.
public enum X5CTestPKI {
    /// A root and one P-256 signing leaf under it, valid from an hour before `now`: the root for five years, the leaf
    /// for two. What a demo or test service signs `x5c` headers with.
    public static func issueChain(
        rootCommonName: String, leafCommonName: String, now: Date, random: inout some RandomNumberGenerator
    ) throws(TrustError) -> (root: IssuedCertificate, leaf: IssuedCertificate) {
        let root = try issueRoot(
            .init(commonName: rootCommonName, notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(5 * 365 * 86_400)),
            random: &random)
        let leaf = try issue(
            .init(commonName: leafCommonName, notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(2 * 365 * 86_400)),
            by: root, random: &random)
        return (root, leaf)
    }

    /// A self-signed root certificate (a CA regardless of `request.isCertificateAuthority`).
    public static func issueRoot(
        _ request: X5CCertificateRequest,
        random: inout some RandomNumberGenerator
    ) throws(TrustError) -> IssuedCertificate {
        var request = request
        request.isCertificateAuthority = true
        let key = try request.key.orGenerate(request.keyAlgorithm, using: &random)
        let subject = try PKIBuilder.name(
            country: nil, stateOrProvince: nil, organization: request.organization, commonName: request.commonName)
        let extensions = try makeExtensions(request, publicKey: key.publicKey, issuer: nil)
        let certificate = try PKIBuilder.certificate(
            serial: PKIBuilder.serialNumber(using: &random),
            publicKey: key.publicKey,
            notBefore: PKIBuilder.wholeSeconds(request.notBefore),
            notAfter: PKIBuilder.wholeSeconds(request.notAfter),
            issuer: subject,
            subject: subject,
            extensions: extensions,
            signer: key
        )
        return IssuedCertificate(certificate: certificate, privateKey: key)
    }

    /// A certificate issued (signed) by `issuer`.
    public static func issue(
        _ request: X5CCertificateRequest,
        by issuer: IssuedCertificate,
        random: inout some RandomNumberGenerator
    ) throws(TrustError) -> IssuedCertificate {
        let key = try request.key.orGenerate(request.keyAlgorithm, using: &random)
        let subject = try PKIBuilder.name(
            country: nil, stateOrProvince: nil, organization: request.organization, commonName: request.commonName)
        let extensions = try makeExtensions(request, publicKey: key.publicKey, issuer: issuer.certificate)
        let certificate = try PKIBuilder.certificate(
            serial: PKIBuilder.serialNumber(using: &random),
            publicKey: key.publicKey,
            notBefore: PKIBuilder.wholeSeconds(request.notBefore),
            notAfter: PKIBuilder.wholeSeconds(request.notAfter),
            issuer: issuer.certificate.subject,
            subject: subject,
            extensions: extensions,
            signer: issuer.privateKey
        )
        return IssuedCertificate(certificate: certificate, privateKey: key)
    }

    private static func makeExtensions(
        _ request: X5CCertificateRequest,
        publicKey: Certificate.PublicKey,
        issuer: Certificate?
    ) throws(TrustError) -> [Certificate.Extension] {
        try PKIBuilder.extensions {
            var extensions: [Certificate.Extension] = []
            let constraints: BasicConstraints =
                request.isCertificateAuthority ? .isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority
            extensions.append(try Certificate.Extension(constraints, critical: true))
            if !request.omitKeyUsage {
                let usage =
                    request.keyUsage
                    ?? (request.isCertificateAuthority
                        ? KeyUsage(keyCertSign: true, cRLSign: true) : KeyUsage(digitalSignature: true))
                extensions.append(try Certificate.Extension(usage, critical: true))
            }
            extensions.append(try Certificate.Extension(SubjectKeyIdentifier(hash: publicKey), critical: false))
            if let issuer {
                extensions.append(
                    try Certificate.Extension(try PKIBuilder.authorityKeyIdentifier(of: issuer), critical: false))
            }
            if !request.subjectAlternativeNames.isEmpty {
                extensions.append(
                    try Certificate.Extension(SubjectAlternativeNames(request.subjectAlternativeNames), critical: false))
            }
            return extensions + request.extraExtensions
        }
    }
}
