import Foundation

/// Certificate serial numbers that must not be trusted, as Google publishes them for attestation keys
/// (https://android.googleapis.com/attestation/status, "Certificate revocation status list").
///
/// Serial numbers are compared as integers: hex case and leading zeros do not matter, so `"0a"`, `"A"` and the
/// certificate serial `0x0A` are the same entry. Every listed entry counts, whatever its `status`
/// (`REVOKED` or `SUSPENDED`): Google asks relying parties to refuse both.
public struct AndroidRevocationList: Sendable, Hashable {
    /// Lowercase hex without leading zeros ("0" for zero).
    private let serials: Set<String>

    /// The list that revokes nothing.
    public static let empty = AndroidRevocationList(normalized: [])

    private init(normalized: Set<String>) { serials = normalized }

    /// A list of serial numbers written in hex (no `0x` prefix, no separators).
    public init(serials: [String]) throws(DeviceAttestationError) {
        var normalized = Set<String>()
        for serial in serials {
            guard let value = Self.normalize(hex: serial) else {
                throw .invalidRevocationList("serial number is not hexadecimal: \(serial.prefix(80))")
            }
            normalized.insert(value)
        }
        self.init(normalized: normalized)
    }

    /// Google's status list format: `{"entries": {"<hex serial>": {"status": …, "reason": …}, …}}`.
    public init(statusJSON: Data) throws(DeviceAttestationError) {
        guard statusJSON.count <= 16 * 1024 * 1024 else { throw .invalidRevocationList("status list larger than 16 MiB") }
        let document: StatusList
        do {
            document = try JSONDecoder().decode(StatusList.self, from: statusJSON)
        } catch {
            throw .invalidRevocationList("not a status list object with an \"entries\" object")
        }
        try self.init(serials: Array(document.entries.keys))
    }

    /// Whether the serial number, given as the big-endian bytes of the certificate's INTEGER, is listed.
    public func contains(serial: Data) -> Bool {
        let hex = serial.map { String(format: "%02x", $0) }.joined()
        guard let value = Self.normalize(hex: hex) else { return false }
        return serials.contains(value)
    }

    /// Whether the serial number written in hex is listed.
    public func contains(serialHex: String) -> Bool {
        guard let value = Self.normalize(hex: serialHex) else { return false }
        return serials.contains(value)
    }

    public var count: Int { serials.count }

    private static func normalize(hex: String) -> String? {
        let lower = hex.lowercased()
        guard !lower.isEmpty, lower.utf8.count <= 512, lower.allSatisfy({ $0.isHexDigit && $0.isASCII }) else {
            return nil
        }
        let trimmed = lower.drop { $0 == "0" }
        return trimmed.isEmpty ? "0" : String(trimmed)
    }

    private struct StatusList: Decodable {
        let entries: [String: Entry]
        struct Entry: Decodable {}
    }
}
