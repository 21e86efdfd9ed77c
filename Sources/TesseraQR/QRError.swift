/// Why a QR Code could not be built. Each case names the ISO/IEC 18004:2015 rule that the request breaks.
public enum QRError: Error, Sendable, Equatable {
    /// §5.3.1: symbol versions run from 1 to 40; a forced version outside that range.
    case versionOutOfRange(Int)
    /// §7.8.2 (Table 10): data mask pattern references run from 0 (000) to 7 (111).
    case maskOutOfRange(Int)
    /// §7.4.1 and Table 7: the byte-mode segment of `byteCount` bytes exceeds the `capacity` in bytes of
    /// `version` at `level` (when no version is forced, `version` is 40, the largest).
    case dataTooLong(byteCount: Int, capacity: Int, version: Int, level: QRErrorCorrectionLevel)
}
