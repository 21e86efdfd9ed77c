import SwiftASN1
import X509

/// The issuerAltName extension (RFC 5280 §4.2.1.7): `GeneralNames` naming the issuer.
///
/// ISO/IEC 18013-5:2021 requires it, non-critical, in the IACA root certificate (B.1.2) and in the Document Signer
/// certificate (B.1.3), carrying an e-mail address (`rfc822Name`) or a URL (`uniformResourceIdentifier`) of the
/// issuing authority.
public struct IssuerAlternativeName: Sendable, Hashable {
    /// The names, in the order they appear in the extension.
    public var names: [GeneralName]

    public init(_ names: [GeneralName]) {
        self.names = names
    }

    /// Decodes the extension value.
    public init(_ ext: Certificate.Extension) throws {
        guard ext.oid == .AdditionalExtensionID.issuerAlternativeName else {
            throw CertificateError.incorrectOIDForExtension(
                reason: "Expected \(ASN1ObjectIdentifier.AdditionalExtensionID.issuerAlternativeName), got \(ext.oid)"
            )
        }
        let root = try DER.parse(ext.value)
        self.names = try DER.sequence(of: GeneralName.self, identifier: .sequence, rootNode: root)
    }

    /// Whether one of the names is an e-mail address or a URI, the two forms Annex B allows.
    package var hasEmailOrURI: Bool {
        names.contains { name in
            switch name {
            case .rfc822Name, .uniformResourceIdentifier: return true
            default: return false
            }
        }
    }
}

extension IssuerAlternativeName: CertificateExtensionConvertible {
    /// Annex B marks issuerAltName non-critical.
    public func makeCertificateExtension() throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.serializeSequenceOf(names)
        return Certificate.Extension(
            oid: .AdditionalExtensionID.issuerAlternativeName,
            critical: false,
            value: serializer.serializedBytes[...]
        )
    }
}

extension Certificate.Extensions {
    /// Loads the issuerAltName extension, if present. Throws if it is present but cannot be decoded.
    public var issuerAlternativeName: IssuerAlternativeName? {
        get throws {
            try self[oid: .AdditionalExtensionID.issuerAlternativeName].map { try IssuerAlternativeName($0) }
        }
    }

    /// Loads the cRLDistributionPoints extension, if present. Throws if it is present but cannot be decoded.
    public var crlDistributionPoints: CRLDistributionPoints? {
        get throws {
            try self[oid: .AdditionalExtensionID.crlDistributionPoints].map { try CRLDistributionPoints($0) }
        }
    }
}
