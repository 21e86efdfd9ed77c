/// A Status List (TSL §4.1): one status of `bits` bits (1, 2, 4 or 8) per Referenced Token, packed into bytes least
/// significant bits first (the status at index 0 sits in the lowest `bits` bits of byte 0), carried ZLIB-compressed
/// as `lst` in JSON (TSL §4.2) or CBOR (TSL §4.3).
public struct StatusList: Sendable, Hashable {
    /// Status Type VALID (TSL §7.1).
    public static let valid: UInt8 = 0x00
    /// Status Type INVALID (TSL §7.1): revoked.
    public static let invalid: UInt8 = 0x01
    /// Status Type SUSPENDED (TSL §7.1): temporarily invalid.
    public static let suspended: UInt8 = 0x02
    /// Status Type APPLICATION_SPECIFIC (TSL §7.1); 0x0C–0x0F are application-specific too.
    public static let applicationSpecific: UInt8 = 0x03

    /// Bits per status: 1, 2, 4 or 8.
    public let bits: Int
    /// The uncompressed byte array.
    public internal(set) var bytes: [UInt8]
    /// `aggregation_uri` (TSL §4.2, §9): where the Status List Aggregation of this issuer is served, if anywhere.
    public var aggregationURI: String?

    /// A list of at least `count` statuses, all VALID (0x00, as TSL §13.3 recommends), rounded up to whole bytes.
    public init(bits: Int, count: Int, aggregationURI: String? = nil) throws(StatusListError) {
        try Self.check(bits: bits)
        guard count > 0, count <= Int(Int32.max) else { throw .invalidCount(count) }
        self.bits = bits
        self.bytes = [UInt8](repeating: 0, count: (count * bits + 7) / 8)
        self.aggregationURI = aggregationURI
    }

    /// From the uncompressed bytes.
    public init(bits: Int, bytes: [UInt8], aggregationURI: String? = nil) throws(StatusListError) {
        try Self.check(bits: bits)
        guard !bytes.isEmpty else { throw .emptyList }
        self.bits = bits
        self.bytes = bytes
        self.aggregationURI = aggregationURI
    }

    /// How many statuses the list holds: every bit of every byte counts (TSL §4.1).
    public var count: Int { bytes.count * 8 / bits }

    /// The status at `index` (TSL §4.1 bit order).
    public func status(at index: Int) throws(StatusListError) -> UInt8 {
        guard index >= 0, index < count else { throw .indexOutOfRange(index: index, count: count) }
        let perByte = 8 / bits
        let shift = (index % perByte) * bits
        return (bytes[index / perByte] >> shift) & mask
    }

    /// Sets the status at `index`; `status` must fit in `bits` bits.
    public mutating func setStatus(_ status: UInt8, at index: Int) throws(StatusListError) {
        guard index >= 0, index < count else { throw .indexOutOfRange(index: index, count: count) }
        try checkFits(status)
        let perByte = 8 / bits
        let shift = (index % perByte) * bits
        let byte = index / perByte
        bytes[byte] = (bytes[byte] & ~(mask << shift)) | (status << shift)
    }

    /// `lst` before its encoding: the bytes ZLIB-compressed at the best level (TSL §4.1).
    public func compressedBytes() throws(StatusListError) -> [UInt8] { try Zlib.compress(bytes) }

    /// The list from `lst` as received: `compressed` inflated (at most `limits.maxListBytes` bytes).
    init(bits: Int, compressed: [UInt8], aggregationURI: String?, limits: StatusListLimits) throws(StatusListError) {
        try Self.check(bits: bits)
        try self.init(bits: bits, bytes: Zlib.decompress(compressed, maxOutput: limits.maxListBytes), aggregationURI: aggregationURI)
    }

    /// The lowest `bits` bits set.
    var mask: UInt8 { UInt8(truncatingIfNeeded: (1 << bits) - 1) }

    func checkFits(_ status: UInt8) throws(StatusListError) {
        guard status & ~mask == 0 else { throw .statusTooWide(status: status, bits: bits) }
    }

    static func check(bits: Int) throws(StatusListError) {
        guard bits == 1 || bits == 2 || bits == 4 || bits == 8 else { throw .unsupportedBits(bits) }
    }
}
