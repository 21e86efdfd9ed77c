/// Switches for the Annex B rules that real-world (and Annex D) certificates do not all meet.
///
/// `default` validates the ISO/IEC 18013-5 Annex D chains; `strict` adds the rules Annex D breaks.
public struct AnnexBOptions: Sendable, Hashable {
    /// Require cRLDistributionPoints naming a URI in the IACA root and Document Signer certificates (B.1.2, B.1.3).
    /// Off by default: the Annex D certificates name a dNSName, not a URI, and revocation is not checked here.
    public var requireCRLDistributionPoints: Bool
    /// Enforce the maximum validity periods: IACA root 20 years, Document Signer 457 days, reader authentication
    /// 1187 days. On by default.
    public var enforceMaximumValidityPeriods: Bool

    public init(requireCRLDistributionPoints: Bool = false, enforceMaximumValidityPeriods: Bool = true) {
        self.requireCRLDistributionPoints = requireCRLDistributionPoints
        self.enforceMaximumValidityPeriods = enforceMaximumValidityPeriods
    }

    /// The rules the Annex D example certificates meet.
    public static let `default` = AnnexBOptions()
    /// Every rule, including cRLDistributionPoints with a URI.
    public static let strict = AnnexBOptions(requireCRLDistributionPoints: true, enforceMaximumValidityPeriods: true)
}

/// Maximum validity periods of Annex B, in days.
package enum MaximumValidity {
    /// 20 years (B.1.2), counted with 5 leap days.
    package static let iacaRoot = 20 * 365 + 5
    /// B.1.3.
    package static let documentSigner = 457
    /// B.1.7.
    package static let readerAuthentication = 1187
}
