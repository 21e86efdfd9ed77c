import Foundation
import TesseraJOSE
import TesseraCore

/// A Status List (draft-ietf-oauth-status-list §4): one status of `bits` bits (1, 2, 4 or 8) per Referenced Token,
/// packed into bytes least significant bits first (the status at index 0 sits in the lowest `bits` bits of byte 0),
/// ZLIB-compressed and base64url-encoded as `lst`.
public struct StatusList: Sendable, Hashable {
    /// Status Types (TSL §7.1). Other values are application-specific.
    public static let valid: UInt8 = 0x00
    public static let invalid: UInt8 = 0x01
    public static let suspended: UInt8 = 0x02

    /// Bits per status: 1, 2, 4 or 8.
    public let bits: Int
    /// The uncompressed byte array.
    public private(set) var bytes: [UInt8]

    /// A list of `count` statuses, all VALID (0x00).
    public init(bits: Int, count: Int) throws(SDJWTError) {
        guard [1, 2, 4, 8].contains(bits) else { throw .statusListMalformed("bits \(bits) is not 1, 2, 4 or 8") }
        guard count > 0, count <= Int(Int32.max) else { throw .statusListMalformed("count \(count) out of range") }
        self.bits = bits
        self.bytes = [UInt8](repeating: 0, count: (count * bits + 7) / 8)
    }

    /// From the uncompressed bytes.
    public init(bits: Int, bytes: [UInt8]) throws(SDJWTError) {
        guard [1, 2, 4, 8].contains(bits) else { throw .statusListMalformed("bits \(bits) is not 1, 2, 4 or 8") }
        guard !bytes.isEmpty else { throw .statusListMalformed("empty list") }
        self.bits = bits
        self.bytes = bytes
    }

    /// From the JSON `status_list` object (TSL §4.2): `bits` and `lst` (base64url of ZLIB data); the decompressed
    /// list may hold at most `maxBytes` bytes.
    public init(json: JSONObject, maxBytes: Int = 16 << 20) throws(SDJWTError) {
        guard let bits = json["bits"]?.int64Value else { throw .statusListMalformed("bits missing or not an integer") }
        guard let lst = json["lst"]?.stringValue else { throw .statusListMalformed("lst missing or not a string") }
        let compressed: Data
        do {
            compressed = try Base64URL.decode(lst)
        } catch {
            throw .statusListMalformed("lst is not base64url")
        }
        try self.init(bits: Int(clamping: bits), bytes: try Zlib.decompress(Array(compressed), maxOutput: maxBytes))
    }

    /// How many statuses the list holds.
    public var count: Int { bytes.count * 8 / bits }

    /// The status at `index` (TSL §4.1 bit order).
    public func status(at index: Int) throws(SDJWTError) -> UInt8 {
        guard index >= 0, index < count else { throw .statusIndexOutOfRange(index: index, count: count) }
        let perByte = 8 / bits
        let shift = (index % perByte) * bits
        let mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        return (bytes[index / perByte] >> shift) & mask
    }

    /// Sets the status at `index`; `status` must fit in `bits` bits.
    public mutating func setStatus(_ status: UInt8, at index: Int) throws(SDJWTError) {
        guard index >= 0, index < count else { throw .statusIndexOutOfRange(index: index, count: count) }
        let mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        guard status & ~mask == 0 else { throw .statusListMalformed("status \(status) does not fit in \(bits) bits") }
        let perByte = 8 / bits
        let shift = (index % perByte) * bits
        let byte = index / perByte
        bytes[byte] = (bytes[byte] & ~(mask << shift)) | (status << shift)
    }

    /// The JSON `status_list` object: `{"bits": n, "lst": base64url(zlib(bytes))}` (TSL §4.2).
    public func jsonObject() throws(SDJWTError) -> JSONObject {
        ["bits": .integer(Int64(bits)), "lst": .string(Base64URL.encode(try Zlib.compress(bytes)))]
    }
}

/// The `status` claim of a Referenced Token (TSL §6.1): `{"status_list": {"idx": n, "uri": "https://…"}}`.
public struct StatusListReference: Sendable, Hashable {
    public let index: Int
    public let uri: String

    public init(index: Int, uri: String) {
        self.index = index
        self.uri = uri
    }

    /// Reads the `status` claim's `status_list` member.
    public init(claim: JSONValue) throws(SDJWTError) {
        guard let statusList = claim["status_list"]?.objectValue else {
            throw .statusClaimMalformed("no status_list object")
        }
        guard let index = statusList["idx"]?.int64Value, index >= 0, index <= Int64(Int32.max) else {
            throw .statusClaimMalformed("idx missing or not a non-negative integer")
        }
        guard let uri = statusList["uri"]?.stringValue else { throw .statusClaimMalformed("uri missing or not a string") }
        self.index = Int(index)
        self.uri = uri
    }

    /// The `status` claim value.
    public var claim: JSONValue {
        .object(["status_list": .object(["idx": .integer(Int64(index)), "uri": .string(uri)])])
    }
}
