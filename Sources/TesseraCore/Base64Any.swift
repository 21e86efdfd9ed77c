import Foundation

/// Base64 as the wallets of the field send it (RFC 4648 §4 and §5): the standard or the URL-safe alphabet, padded
/// or not. The decoded bytes are what is compared or verified, so the spelling carries no meaning.
///
/// Whitespace around the value is ignored. Inside it, only the line breaks of `lineWrapped` are accepted: any other
/// character outside the alphabets makes the value invalid.
public enum Base64Any {
    /// Android's `Base64.DEFAULT` and MIME (RFC 2045 §6.8) wrap base64 into lines of 76 characters.
    public static let lineLength = 76

    /// Standard or URL-safe, padded or not, on one line.
    ///
    /// Works on the UTF-8 bytes: Foundation's `replacingOccurrences`/`trimmingCharacters` go through NSString on
    /// Linux and cost more than verifying an attestation's signatures.
    public static func decode(_ text: some StringProtocol) -> Data? {
        guard let value = trimmed(text) else { return Data() }
        return decodeLine(value)
    }

    /// As `decode`, and also the wrapped form Android's `Base64.DEFAULT` writes (io-react-native-integrity's
    /// `key_attestation`): lines of exactly 76 characters, each ended by `\n` (or `\r\n`), the last line shorter
    /// or equal. Lines of any other length are refused, as is whitespace anywhere else.
    public static func decodeLineWrapped(_ text: some StringProtocol) -> Data? {
        guard let value = trimmed(text) else { return Data() }
        guard value.contains(UInt8(ascii: "\n")) else { return decodeLine(value) }
        var joined: [UInt8] = []
        joined.reserveCapacity(value.count)
        var lines = value.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)[...]
        while let line = lines.popFirst() {
            let content = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            let isLast = lines.isEmpty
            guard isLast ? (1...lineLength).contains(content.count) : content.count == lineLength else { return nil }
            joined.append(contentsOf: content)
        }
        return decodeLine(joined[...])
    }

    /// The value without the whitespace around it; nil when it is all whitespace.
    private static func trimmed(_ text: some StringProtocol) -> ArraySlice<UInt8>? {
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return nil
        }
        return bytes[first...last]
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    private static func decodeLine(_ value: ArraySlice<UInt8>) -> Data? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.count + 2)
        for byte in value {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            case 0x80...: return nil
            default: bytes.append(byte)
            }
        }
        let remainder = bytes.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { bytes += repeatElement(UInt8(ascii: "="), count: 4 - remainder) }
        return Data(base64Encoded: Data(bytes))
    }
}
