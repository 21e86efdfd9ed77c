/// The certificate profiles of ISO/IEC 18013-5:2021 Annex B that TesseraTrust enforces, plus the generic
/// certification-path rules (RFC 5280 §6.1) every link is checked against.
public enum CertificateProfile: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// IACA root certificate (B.1.2).
    case iacaRoot
    /// Document Signer certificate (B.1.3).
    case documentSigner
    /// Root (issuing CA) certificate of mdoc reader authentication certificates (B.1.7).
    case readerRoot
    /// mdoc reader authentication certificate (B.1.7).
    case readerAuthentication
    /// Rules of the path as a whole: signatures, name chaining, validity, path length (RFC 5280 §6.1, B.1.1).
    case certificationPath

    /// Where the rule comes from, e.g. `ISO/IEC 18013-5:2021 B.1.3`.
    public var clause: String {
        switch self {
        case .iacaRoot: return "ISO/IEC 18013-5:2021 B.1.2"
        case .documentSigner: return "ISO/IEC 18013-5:2021 B.1.3"
        case .readerRoot, .readerAuthentication: return "ISO/IEC 18013-5:2021 B.1.7"
        case .certificationPath: return "RFC 5280 §6.1 (ISO/IEC 18013-5:2021 B.1.1)"
        }
    }

    /// The certificate's name in prose.
    public var certificateName: String {
        switch self {
        case .iacaRoot: return "IACA root certificate"
        case .documentSigner: return "Document Signer certificate"
        case .readerRoot: return "reader root certificate"
        case .readerAuthentication: return "mdoc reader authentication certificate"
        case .certificationPath: return "certificate"
        }
    }

    public var description: String { "\(clause) (\(certificateName))" }
}
