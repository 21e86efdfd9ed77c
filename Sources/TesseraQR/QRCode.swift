/// An ISO/IEC 18004:2015 QR Code symbol holding one byte-mode segment: the module grid plus the version,
/// error correction level and data mask it was built with.
public struct QRCode: Sendable, Equatable {
    /// Symbol version, 1...40 (§5.3.1).
    public let version: Int
    /// Error correction level (§5.3.4).
    public let level: QRErrorCorrectionLevel
    /// Data mask pattern reference, 0...7 (§7.8.2).
    public let mask: Int
    /// One byte per module, row-major, 1 dark and 0 light.
    private let modules: [UInt8]

    /// Modules per side: 17 + 4 · version (§5.3.1), without the quiet zone.
    public var size: Int { QRVersionTable.size(version) }

    /// Whether the module in column `x`, row `y` (0-based from the top-left corner) is dark.
    /// Coordinates outside the symbol are light (they fall in the quiet zone).
    @inlinable
    public func isDark(x: Int, y: Int) -> Bool {
        module(x: x, y: y)
    }

    @usableFromInline
    func module(x: Int, y: Int) -> Bool {
        let n = size
        guard x >= 0, y >= 0, x < n, y < n else { return false }
        return modules[y * n + x] != 0
    }

    /// Encodes `data` as one byte-mode segment (§7.4.5).
    ///
    /// - Parameters:
    ///   - level: error correction level; `.medium` by default.
    ///   - version: force this version (1...40); by default the smallest version that holds the data.
    ///   - mask: force this mask pattern (0...7); by default the one with the lowest penalty (§7.8.3).
    /// - Throws: `QRError.maskOutOfRange`, `.versionOutOfRange`, or `.dataTooLong` when the data exceeds the
    ///   forced version (or version 40) at the level.
    public static func encode(
        _ data: some Collection<UInt8>, level: QRErrorCorrectionLevel = .medium,
        version: Int? = nil, mask: Int? = nil
    ) throws(QRError) -> QRCode {
        if let mask, !QRMask.references.contains(mask) { throw .maskOutOfRange(mask) }
        let count = data.count
        let chosen: Int
        if let version {
            guard QRVersionTable.versions.contains(version) else { throw .versionOutOfRange(version) }
            let capacity = QRVersionTable.byteCapacity(version, level)
            guard count <= capacity else {
                throw .dataTooLong(byteCount: count, capacity: capacity, version: version, level: level)
            }
            chosen = version
        } else {
            guard let smallest = QRVersionTable.versions.first(where: { count <= QRVersionTable.byteCapacity($0, level) })
            else {
                let capacity = QRVersionTable.byteCapacity(40, level)
                throw .dataTooLong(byteCount: count, capacity: capacity, version: 40, level: level)
            }
            chosen = smallest
        }
        // One contiguous copy, so the rest of the encoder is not generic over the caller's collection.
        let bytes = [UInt8](data)
        let dataCodewords = QRCodewords.dataCodewords(bytes, version: chosen, level: level)
        let codewords = QRCodewords.interleaved(data: dataCodewords, version: chosen, level: level)
        var matrix = QRMatrix(version: chosen)
        matrix.placeCodewords(codewords)
        let (modules, chosenMask) = Self.masked(matrix, level: level, forcedMask: mask)
        return QRCode(version: chosen, level: level, mask: chosenMask, modules: modules)
    }

    /// Encodes the UTF-8 bytes of `text` as one byte-mode segment, at the smallest version that holds them.
    public static func encode(_ text: String, level: QRErrorCorrectionLevel = .medium) throws(QRError) -> QRCode {
        try encode(text.utf8, level: level)
    }

    /// The largest byte-mode payload, in bytes, that `version` holds at `level` (Table 7).
    public static func byteCapacity(version: Int, level: QRErrorCorrectionLevel) throws(QRError) -> Int {
        guard QRVersionTable.versions.contains(version) else { throw .versionOutOfRange(version) }
        return QRVersionTable.byteCapacity(version, level)
    }

    /// The penalty score of this symbol under §7.8.3 (N1 + N2 + N3 + N4), as used to choose the mask.
    public var maskPenalty: Int {
        modules.withUnsafeBufferPointer { QRPenalty.score(of: $0, size: size) }
    }

    private init(version: Int, level: QRErrorCorrectionLevel, mask: Int, modules: [UInt8]) {
        self.version = version
        self.level = level
        self.mask = mask
        self.modules = modules
    }

    /// §7.8: applies the forced mask, or the one with the lowest penalty (§7.8.3), then draws the matching
    /// format information (§7.9).
    private static func masked(
        _ base: QRMatrix, level: QRErrorCorrectionLevel, forcedMask: Int?
    ) -> (modules: [UInt8], mask: Int) {
        let mask = forcedMask ?? QRMask.lowestPenalty(base, level: level)
        var matrix = base
        QRMask.apply(mask, to: &matrix)
        matrix.drawFormatInformation(BCHCode.formatInformation(level: level, mask: mask))
        return (matrix.modules, mask)
    }
}
