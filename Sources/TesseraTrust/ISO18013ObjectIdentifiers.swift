import SwiftASN1
import X509

extension ASN1ObjectIdentifier {
    /// Object identifiers defined by ISO/IEC 18013-5:2021 (Annex B) for mdoc certificates.
    public enum ISO18013 {
        /// `id-mdl-kp-mdlDS` (1.0.18013.5.1.2): extended key usage of a Document Signer certificate (B.1.3).
        public static let documentSigner: ASN1ObjectIdentifier = [1, 0, 18013, 5, 1, 2]
        /// `id-mdl-kp-mdlReaderAuth` (1.0.18013.5.1.6): extended key usage of an mdoc reader authentication
        /// certificate (B.1.7).
        public static let readerAuthentication: ASN1ObjectIdentifier = [1, 0, 18013, 5, 1, 6]
    }

    /// Extension identifiers that swift-certificates does not name.
    package enum AdditionalExtensionID {
        package static let issuerAlternativeName: ASN1ObjectIdentifier = [2, 5, 29, 18]
        package static let crlDistributionPoints: ASN1ObjectIdentifier = [2, 5, 29, 31]
        package static let policyMappings: ASN1ObjectIdentifier = [2, 5, 29, 33]
        package static let policyConstraints: ASN1ObjectIdentifier = [2, 5, 29, 36]
        package static let freshestCRL: ASN1ObjectIdentifier = [2, 5, 29, 46]
        package static let inhibitAnyPolicy: ASN1ObjectIdentifier = [2, 5, 29, 54]
    }
}

extension ExtendedKeyUsage.Usage {
    /// `id-mdl-kp-mdlDS` (1.0.18013.5.1.2), ISO/IEC 18013-5:2021 B.1.3.
    public static let mdlDocumentSigner = Self(oid: ASN1ObjectIdentifier.ISO18013.documentSigner)
    /// `id-mdl-kp-mdlReaderAuth` (1.0.18013.5.1.6), ISO/IEC 18013-5:2021 B.1.7.
    public static let mdlReaderAuthentication = Self(oid: ASN1ObjectIdentifier.ISO18013.readerAuthentication)
}

/// Human-readable names for the extensions the profiles talk about (used in `TrustError` descriptions).
enum ExtensionName {
    static func of(_ oid: ASN1ObjectIdentifier) -> String {
        switch oid {
        case .X509ExtensionID.basicConstraints: return "basicConstraints"
        case .X509ExtensionID.keyUsage: return "keyUsage"
        case .X509ExtensionID.extendedKeyUsage: return "extKeyUsage"
        case .X509ExtensionID.subjectKeyIdentifier: return "subjectKeyIdentifier"
        case .X509ExtensionID.authorityKeyIdentifier: return "authorityKeyIdentifier"
        case .X509ExtensionID.subjectAlternativeName: return "subjectAltName"
        case .X509ExtensionID.nameConstraints: return "nameConstraints"
        case .X509ExtensionID.authorityInformationAccess: return "authorityInfoAccess"
        case .AdditionalExtensionID.issuerAlternativeName: return "issuerAltName"
        case .AdditionalExtensionID.crlDistributionPoints: return "cRLDistributionPoints"
        case .AdditionalExtensionID.policyMappings: return "policyMappings"
        case .AdditionalExtensionID.policyConstraints: return "policyConstraints"
        case .AdditionalExtensionID.freshestCRL: return "freshestCRL"
        case .AdditionalExtensionID.inhibitAnyPolicy: return "inhibitAnyPolicy"
        default: return oid.description
        }
    }
}
