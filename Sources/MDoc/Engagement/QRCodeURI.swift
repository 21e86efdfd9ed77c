import Foundation
import TesseraCBOR

/// The QR device engagement payload (§8.2.2.3): `"mdoc:"` followed by the DeviceEngagement
/// bytes in base64url without padding.
public enum MDocQRCode {
    public static let scheme = "mdoc:"
    /// Longest URI accepted; a DeviceEngagement is a few hundred bytes.
    public static let maximumLength = 4096

    /// The URI for engagement bytes (encode the engagement once and keep those bytes).
    public static func uri(for deviceEngagementBytes: Data) -> String {
        scheme + Base64URL.encode(deviceEngagementBytes)
    }

    /// The engagement bytes exactly as the QR carried them, and the engagement they hold.
    public static func parse(_ uri: String) throws(MDocError) -> (bytes: Data, engagement: DeviceEngagement) {
        func fail(_ r: String) -> MDocError { .invalidStructure(structure: "mdoc QR URI", reason: r) }
        guard uri.utf8.count <= maximumLength else { throw fail("longer than \(maximumLength) characters") }
        guard uri.lowercased().hasPrefix(scheme) else { throw fail("does not start with \"mdoc:\"") }
        guard let bytes = Base64URL.decode(String(uri.dropFirst(scheme.count))) else {
            throw fail("payload is not base64url")
        }
        return (bytes, try DeviceEngagement(bytes: bytes))
    }
}

/// RFC 4648 §5 base64url without padding.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded (or padded) base64url; nil for any other character.
    static func decode(_ text: String) -> Data? {
        guard text.utf8.allSatisfy({ c in
            (0x41...0x5a).contains(c) || (0x61...0x7a).contains(c) || (0x30...0x39).contains(c) || c == 0x2d
                || c == 0x5f || c == 0x3d
        }) else { return nil }
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        s = s.replacingOccurrences(of: "=", with: "")
        guard s.count % 4 != 1 else { return nil }
        s += String(repeating: "=", count: (4 - s.count % 4) % 4)
        return Data(base64Encoded: s)
    }
}
