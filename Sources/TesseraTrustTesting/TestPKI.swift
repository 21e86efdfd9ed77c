import Crypto
import Foundation
import TesseraTrust
import SwiftASN1
import X509

/// A created certificate and its private key.
public struct IssuedCertificate: Sendable {
    public let certificate: Certificate
    public let privateKey: SigningKey

    public init(certificate: Certificate, privateKey: SigningKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// The certificate as DER.
    public func derEncoded() throws(TrustError) -> Data {
        try CertificatePEM.der(certificate)
    }

    /// The certificate as PEM (`-----BEGIN CERTIFICATE-----`).
    public func certificatePEM() throws(TrustError) -> String {
        try CertificatePEM.encode(certificate)
    }

    /// The private key as PKCS#8 PEM. Secret.
    public var privateKeyPEM: String { privateKey.pkcs8PEM }
}

/// PEM and DER serialisation of certificates.
public enum CertificatePEM {
    /// One `CERTIFICATE` PEM block.
    public static func encode(_ certificate: Certificate) throws(TrustError) -> String {
        do {
            return try certificate.serializeAsPEM().pemString
        } catch {
            throw .issuanceFailed("PEM encoding: \(error)")
        }
    }

    /// Several `CERTIFICATE` blocks, one after the other (a bundle `TrustAnchors(pemBundle:)` reads).
    public static func encode(_ certificates: [Certificate]) throws(TrustError) -> String {
        var blocks: [String] = []
        for certificate in certificates { blocks.append(try encode(certificate)) }
        return blocks.joined(separator: "\n") + "\n"
    }

    /// The DER encoding (what an x5chain carries).
    public static func der(_ certificate: Certificate) throws(TrustError) -> Data {
        do {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return Data(serializer.serializedBytes)
        } catch {
            throw .issuanceFailed("DER encoding: \(error)")
        }
    }
}

// MARK: - Requests

/// What to put in a new IACA root certificate (B.1.2).
public struct IACARootRequest: Sendable, Hashable {
    /// Upper-case ISO 3166-1 alpha-2 code of the issuing country.
    public var country: String
    /// Optional stateOrProvinceName; Document Signers issued under this root carry the same.
    public var stateOrProvince: String?
    public var organization: String?
    public var commonName: String
    /// The issuerAltName entry: `.rfc822Name` (e-mail) or `.uniformResourceIdentifier`.
    public var issuerAlternativeName: GeneralName
    /// Where the IACA publishes its CRL; also copied into the Document Signers it issues.
    public var crlDistributionPointURI: String?
    /// Validity from `now`, in days (at most 20 years).
    public var validityDays: Int
    public var keyAlgorithm: SigningKeyAlgorithm

    public init(
        country: String,
        stateOrProvince: String? = nil,
        organization: String? = nil,
        commonName: String,
        issuerAlternativeName: GeneralName,
        crlDistributionPointURI: String? = nil,
        validityDays: Int = 9 * 365,
        keyAlgorithm: SigningKeyAlgorithm = .p256
    ) {
        self.country = country
        self.stateOrProvince = stateOrProvince
        self.organization = organization
        self.commonName = commonName
        self.issuerAlternativeName = issuerAlternativeName
        self.crlDistributionPointURI = crlDistributionPointURI
        self.validityDays = validityDays
        self.keyAlgorithm = keyAlgorithm
    }
}

/// What to put in a new Document Signer certificate (B.1.3). Country, stateOrProvince, issuerAltName and
/// cRLDistributionPoints come from the IACA.
public struct DocumentSignerRequest: Sendable, Hashable {
    public var commonName: String
    public var organization: String?
    /// Validity from `now`, in days (at most 457, and ending no later than the IACA).
    public var validityDays: Int
    public var keyAlgorithm: SigningKeyAlgorithm

    public init(
        commonName: String,
        organization: String? = nil,
        validityDays: Int = 365,
        keyAlgorithm: SigningKeyAlgorithm = .p256
    ) {
        self.commonName = commonName
        self.organization = organization
        self.validityDays = validityDays
        self.keyAlgorithm = keyAlgorithm
    }
}

/// What to put in a new reader root certificate (B.1.7 issuing CA).
public struct ReaderRootRequest: Sendable, Hashable {
    public var commonName: String
    public var country: String?
    public var organization: String?
    /// Optional issuerAltName; when present, reader certificates issued under this root carry it too.
    public var issuerAlternativeName: GeneralName?
    public var validityDays: Int
    public var keyAlgorithm: SigningKeyAlgorithm

    public init(
        commonName: String,
        country: String? = nil,
        organization: String? = nil,
        issuerAlternativeName: GeneralName? = nil,
        validityDays: Int = 9 * 365,
        keyAlgorithm: SigningKeyAlgorithm = .p256
    ) {
        self.commonName = commonName
        self.country = country
        self.organization = organization
        self.issuerAlternativeName = issuerAlternativeName
        self.validityDays = validityDays
        self.keyAlgorithm = keyAlgorithm
    }
}

/// What to put in a new mdoc reader authentication certificate (B.1.7).
public struct ReaderCertificateRequest: Sendable, Hashable {
    public var commonName: String
    public var organization: String?
    /// Validity from `now`, in days (at most 1187, and ending no later than the root).
    public var validityDays: Int
    public var keyAlgorithm: SigningKeyAlgorithm

    public init(
        commonName: String,
        organization: String? = nil,
        validityDays: Int = 365,
        keyAlgorithm: SigningKeyAlgorithm = .p256
    ) {
        self.commonName = commonName
        self.organization = organization
        self.validityDays = validityDays
        self.keyAlgorithm = keyAlgorithm
    }
}

// MARK: - Issuers

/// An IACA (issuing authority CA) for tests, demos and `tessera mdoc iaca create`: creates the IACA root
/// certificate with every Annex B extension (B.1.2) and issues Document Signer certificates (B.1.3) under it.
/// Time (`now`) and randomness (serial numbers, keys) are injected.
public struct IACAIssuer: Sendable {
    /// The IACA root certificate and its private key.
    public let root: IssuedCertificate

    /// Resumes an existing IACA (e.g. read back from PEM). The key must belong to the certificate.
    public init(certificate: Certificate, privateKey: SigningKey) throws(TrustError) {
        guard certificate.publicKey == privateKey.publicKey else {
            throw .invalidIssuanceRequest("the private key does not belong to the IACA certificate")
        }
        root = IssuedCertificate(certificate: certificate, privateKey: privateKey)
    }

    /// Creates a self-signed IACA root certificate valid from `now` (whole seconds).
    /// - Parameter key: the IACA key; generated from `random` when nil.
    public static func create(
        _ request: IACARootRequest,
        now: Date,
        random: inout some RandomNumberGenerator,
        key: SigningKey? = nil
    ) throws(TrustError) -> IACAIssuer {
        try PKIRequestCheck.nonEmpty(request.commonName, "commonName")
        try PKIRequestCheck.country(request.country)
        try PKIRequestCheck.validity(request.validityDays, maximum: MaximumValidity.iacaRoot, of: "an IACA root")
        try PKIRequestCheck.issuerAlternativeName(request.issuerAlternativeName)
        let key = try key.orGenerate(request.keyAlgorithm, using: &random)
        let subject = try PKIBuilder.name(
            country: request.country,
            stateOrProvince: request.stateOrProvince,
            organization: request.organization,
            commonName: request.commonName
        )
        var extensions: [Certificate.Extension] = try PKIBuilder.extensions {
            [
                try Certificate.Extension(SubjectKeyIdentifier(hash: key.publicKey), critical: false),
                try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
                try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true),
                try IssuerAlternativeName([request.issuerAlternativeName]).makeCertificateExtension(),
            ]
        }
        if let uri = request.crlDistributionPointURI {
            extensions.append(try PKIBuilder.extensions { [try CRLDistributionPoints(uri: uri).makeCertificateExtension()] }[0])
        }
        let notBefore = PKIBuilder.wholeSeconds(now)
        let certificate = try PKIBuilder.certificate(
            serial: PKIBuilder.serialNumber(using: &random),
            publicKey: key.publicKey,
            notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(Double(request.validityDays) * 86_400),
            issuer: subject,
            subject: subject,
            extensions: extensions,
            signer: key
        )
        return try IACAIssuer(certificate: certificate, privateKey: key)
    }

    /// The IACA root as the only trust anchor (what a verifier of this IACA's documents trusts).
    public var trustAnchors: TrustAnchors { TrustAnchors([root.certificate]) }

    /// Issues a Document Signer certificate valid from `now`, with the IACA's country (and stateOrProvince),
    /// issuerAltName and cRLDistributionPoints, authorityKeyIdentifier = the IACA subjectKeyIdentifier.
    /// - Parameter key: the Document Signer key; generated from `random` when nil.
    public func issueDocumentSigner(
        _ request: DocumentSignerRequest,
        now: Date,
        random: inout some RandomNumberGenerator,
        key: SigningKey? = nil
    ) throws(TrustError) -> IssuedCertificate {
        try PKIRequestCheck.nonEmpty(request.commonName, "commonName")
        try PKIRequestCheck.validity(
            request.validityDays,
            maximum: MaximumValidity.documentSigner,
            of: "a Document Signer"
        )
        let iaca = root.certificate
        let notBefore = PKIBuilder.wholeSeconds(now)
        let notAfter = notBefore.addingTimeInterval(Double(request.validityDays) * 86_400)
        guard notBefore >= iaca.notValidBefore, notAfter <= iaca.notValidAfter else {
            throw .invalidIssuanceRequest("the Document Signer validity must lie within the IACA validity (B.1.3)")
        }
        guard let country = iaca.subjectValues(.RDNAttributeType.countryName).first else {
            throw .invalidIssuanceRequest("the IACA certificate has no countryName")
        }
        guard let issuerAltName = iaca.extensions[oid: .AdditionalExtensionID.issuerAlternativeName] else {
            throw .invalidIssuanceRequest("the IACA certificate has no issuerAltName")
        }
        let key = try key.orGenerate(request.keyAlgorithm, using: &random)
        let subject = try PKIBuilder.name(
            country: country,
            stateOrProvince: iaca.subjectValues(.RDNAttributeType.stateOrProvinceName).first,
            organization: request.organization,
            commonName: request.commonName
        )
        var extensions = try PKIBuilder.extensions {
            [
                try Certificate.Extension(SubjectKeyIdentifier(hash: key.publicKey), critical: false),
                try Certificate.Extension(PKIBuilder.authorityKeyIdentifier(of: iaca), critical: false),
                try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
                try Certificate.Extension(ExtendedKeyUsage([.mdlDocumentSigner]), critical: true),
            ]
        }
        extensions.append(issuerAltName)
        if let crl = iaca.extensions[oid: .AdditionalExtensionID.crlDistributionPoints] {
            extensions.append(crl)
        }
        let certificate = try PKIBuilder.certificate(
            serial: PKIBuilder.serialNumber(using: &random),
            publicKey: key.publicKey,
            notBefore: notBefore,
            notAfter: notAfter,
            issuer: iaca.subject,
            subject: subject,
            extensions: extensions,
            signer: root.privateKey
        )
        return IssuedCertificate(certificate: certificate, privateKey: key)
    }
}

/// A reader CA for tests and demos: creates the reader root certificate and issues mdoc reader authentication
/// certificates (B.1.7) under it. Time and randomness are injected.
public struct ReaderRootIssuer: Sendable {
    /// The reader root certificate and its private key.
    public let root: IssuedCertificate

    /// Resumes an existing reader root. The key must belong to the certificate.
    public init(certificate: Certificate, privateKey: SigningKey) throws(TrustError) {
        guard certificate.publicKey == privateKey.publicKey else {
            throw .invalidIssuanceRequest("the private key does not belong to the reader root certificate")
        }
        root = IssuedCertificate(certificate: certificate, privateKey: privateKey)
    }

    /// Creates a self-signed reader root certificate valid from `now`: CA with pathLenConstraint 0, keyUsage
    /// {keyCertSign, cRLSign}, subjectKeyIdentifier.
    public static func create(
        _ request: ReaderRootRequest,
        now: Date,
        random: inout some RandomNumberGenerator,
        key: SigningKey? = nil
    ) throws(TrustError) -> ReaderRootIssuer {
        try PKIRequestCheck.nonEmpty(request.commonName, "commonName")
        if let country = request.country { try PKIRequestCheck.country(country) }
        try PKIRequestCheck.validity(request.validityDays, maximum: MaximumValidity.iacaRoot, of: "a reader root")
        if let name = request.issuerAlternativeName { try PKIRequestCheck.issuerAlternativeName(name) }
        let key = try key.orGenerate(request.keyAlgorithm, using: &random)
        let subject = try PKIBuilder.name(
            country: request.country,
            stateOrProvince: nil,
            organization: request.organization,
            commonName: request.commonName
        )
        var extensions = try PKIBuilder.extensions {
            [
                try Certificate.Extension(SubjectKeyIdentifier(hash: key.publicKey), critical: false),
                try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
                try Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true),
            ]
        }
        if let name = request.issuerAlternativeName {
            extensions += try PKIBuilder.extensions { [try IssuerAlternativeName([name]).makeCertificateExtension()] }
        }
        let notBefore = PKIBuilder.wholeSeconds(now)
        let certificate = try PKIBuilder.certificate(
            serial: PKIBuilder.serialNumber(using: &random),
            publicKey: key.publicKey,
            notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(Double(request.validityDays) * 86_400),
            issuer: subject,
            subject: subject,
            extensions: extensions,
            signer: key
        )
        return try ReaderRootIssuer(certificate: certificate, privateKey: key)
    }

    /// The reader root as the only trust anchor.
    public var trustAnchors: TrustAnchors { TrustAnchors([root.certificate]) }

    /// Issues an mdoc reader authentication certificate valid from `now`: keyUsage {digitalSignature}, extKeyUsage
    /// id-mdl-kp-mdlReaderAuth, both critical; subjectKeyIdentifier; authorityKeyIdentifier = the root's
    /// subjectKeyIdentifier; the root's issuerAltName when it has one.
    public func issueReaderCertificate(
        _ request: ReaderCertificateRequest,
        now: Date,
        random: inout some RandomNumberGenerator,
        key: SigningKey? = nil
    ) throws(TrustError) -> IssuedCertificate {
        try PKIRequestCheck.nonEmpty(request.commonName, "commonName")
        try PKIRequestCheck.validity(
            request.validityDays,
            maximum: MaximumValidity.readerAuthentication,
            of: "a reader authentication certificate"
        )
        let readerRoot = root.certificate
        let notBefore = PKIBuilder.wholeSeconds(now)
        let notAfter = notBefore.addingTimeInterval(Double(request.validityDays) * 86_400)
        guard notBefore >= readerRoot.notValidBefore, notAfter <= readerRoot.notValidAfter else {
            throw .invalidIssuanceRequest("the reader certificate validity must lie within the reader root validity")
        }
        let key = try key.orGenerate(request.keyAlgorithm, using: &random)
        let subject = try PKIBuilder.name(
            country: nil,
            stateOrProvince: nil,
            organization: request.organization,
            commonName: request.commonName
        )
        var extensions = try PKIBuilder.extensions {
            [
                try Certificate.Extension(SubjectKeyIdentifier(hash: key.publicKey), critical: false),
                try Certificate.Extension(PKIBuilder.authorityKeyIdentifier(of: readerRoot), critical: false),
                try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
                try Certificate.Extension(ExtendedKeyUsage([.mdlReaderAuthentication]), critical: true),
            ]
        }
        if let issuerAltName = readerRoot.extensions[oid: .AdditionalExtensionID.issuerAlternativeName] {
            extensions.append(issuerAltName)
        }
        let certificate = try PKIBuilder.certificate(
            serial: PKIBuilder.serialNumber(using: &random),
            publicKey: key.publicKey,
            notBefore: notBefore,
            notAfter: notAfter,
            issuer: readerRoot.subject,
            subject: subject,
            extensions: extensions,
            signer: root.privateKey
        )
        return IssuedCertificate(certificate: certificate, privateKey: key)
    }
}

// MARK: - Building blocks

enum PKIRequestCheck {
    static func nonEmpty(_ value: String, _ field: String) throws(TrustError) {
        guard !value.isEmpty else { throw .invalidIssuanceRequest("\(field) is empty") }
    }

    static func country(_ value: String) throws(TrustError) {
        guard isISO3166CountryCode(value) else {
            throw .invalidIssuanceRequest("country \"\(value)\" is not an upper-case ISO 3166-1 alpha-2 code")
        }
    }

    static func validity(_ days: Int, maximum: Int, of what: String) throws(TrustError) {
        guard days > 0, days <= maximum else {
            throw .invalidIssuanceRequest("validity of \(what) must be 1…\(maximum) days, not \(days)")
        }
    }

    static func issuerAlternativeName(_ name: GeneralName) throws(TrustError) {
        guard IssuerAlternativeName([name]).hasEmailOrURI else {
            throw .invalidIssuanceRequest("issuerAltName must be an e-mail address (rfc822Name) or a URI")
        }
    }
}

enum PKIBuilder {
    /// X.509 times have whole seconds; truncate so that `now` itself lies inside the validity.
    static func wholeSeconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    /// A positive 16-octet serial number with 126 random bits (B.1: at least 63 bits from a CSPRNG, at most 20
    /// octets).
    static func serialNumber(using random: inout some RandomNumberGenerator) -> Certificate.SerialNumber {
        var bytes = RandomBytes.draw(16, using: &random)
        bytes[0] = (bytes[0] & 0x3F) | 0x40
        return Certificate.SerialNumber(bytes: bytes)
    }

    /// countryName (PrintableString), stateOrProvinceName, organizationName, commonName (UTF8String), in that order.
    static func name(
        country: String?,
        stateOrProvince: String?,
        organization: String?,
        commonName: String
    ) throws(TrustError) -> DistinguishedName {
        do {
            var rdns: [RelativeDistinguishedName] = []
            if let country {
                rdns.append(RelativeDistinguishedName(try .init(type: .RDNAttributeType.countryName, printableString: country)))
            }
            if let stateOrProvince {
                rdns.append(
                    RelativeDistinguishedName(.init(type: .RDNAttributeType.stateOrProvinceName, utf8String: stateOrProvince))
                )
            }
            if let organization {
                rdns.append(
                    RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationName, utf8String: organization))
                )
            }
            rdns.append(RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: commonName)))
            return DistinguishedName(rdns)
        } catch {
            throw .invalidIssuanceRequest("subject name: \(error)")
        }
    }

    static func authorityKeyIdentifier(of issuer: Certificate) throws -> AuthorityKeyIdentifier {
        guard let ski = try issuer.extensions.subjectKeyIdentifier else {
            throw TrustError.invalidIssuanceRequest("the issuer certificate has no subjectKeyIdentifier")
        }
        return AuthorityKeyIdentifier(keyIdentifier: ski.keyIdentifier)
    }

    /// Runs a throwing extension builder, mapping encoding failures to `TrustError`.
    static func extensions(
        _ build: () throws -> [Certificate.Extension]
    ) throws(TrustError) -> [Certificate.Extension] {
        do {
            return try build()
        } catch let error as TrustError {
            throw error
        } catch {
            throw .issuanceFailed("extension encoding: \(error)")
        }
    }

    static func certificate(
        serial: Certificate.SerialNumber,
        publicKey: Certificate.PublicKey,
        notBefore: Date,
        notAfter: Date,
        issuer: DistinguishedName,
        subject: DistinguishedName,
        extensions: [Certificate.Extension],
        signer: SigningKey
    ) throws(TrustError) -> Certificate {
        do {
            return try Certificate(
                version: .v3,
                serialNumber: serial,
                publicKey: publicKey,
                notValidBefore: notBefore,
                notValidAfter: notAfter,
                issuer: issuer,
                subject: subject,
                signatureAlgorithm: signer.signatureAlgorithm,
                extensions: Certificate.Extensions(extensions),
                issuerPrivateKey: signer.certificatePrivateKey
            )
        } catch {
            throw .issuanceFailed("certificate signing: \(error)")
        }
    }
}

extension Optional where Wrapped == SigningKey {
    /// The given key, or a new one drawn from `random`.
    func orGenerate(
        _ algorithm: SigningKeyAlgorithm,
        using random: inout some RandomNumberGenerator
    ) throws(TrustError) -> SigningKey {
        if let key = self { return key }
        return try SigningKey.generate(algorithm, using: &random)
    }
}
