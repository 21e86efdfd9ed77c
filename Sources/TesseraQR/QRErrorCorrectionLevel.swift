/// The four error correction levels of ISO/IEC 18004:2015 §5.3.4 (Table 1): the share of codewords
/// that can be restored is about 7 % (L), 15 % (M), 25 % (Q) and 30 % (H).
public enum QRErrorCorrectionLevel: Sendable, CaseIterable {
    case low, medium, quartile, high

    /// The two-bit indicator placed in the format information (§7.9.1, Table 12): L 01, M 00, Q 11, H 10.
    public var formatIndicator: Int {
        switch self {
        case .low: return 0b01
        case .medium: return 0b00
        case .quartile: return 0b11
        case .high: return 0b10
        }
    }

    /// The letter the standard uses for the level.
    public var letter: Character {
        switch self {
        case .low: return "L"
        case .medium: return "M"
        case .quartile: return "Q"
        case .high: return "H"
        }
    }

    /// Row index into the error correction tables (`QRVersionTable`).
    var tableIndex: Int {
        switch self {
        case .low: return 0
        case .medium: return 1
        case .quartile: return 2
        case .high: return 3
        }
    }
}
