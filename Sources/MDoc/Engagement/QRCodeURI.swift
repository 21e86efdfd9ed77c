import Foundation
import TesseraCBOR
import TesseraCore

/// The QR device engagement payload (§8.2.2.3): `"mdoc:"` followed by the DeviceEngagement
/// bytes in base64url without padding.
public enum MDocQRCode {
    /// The URI scheme prefix, `"mdoc:"`; matched case-insensitively when parsing.
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
        // ISO 18013-5 §8.2.2.3 writes no padding; a reader that adds some is tolerated (the bytes are the same).
        var payload = uri.dropFirst(scheme.count)
        while payload.last == "=" { payload = payload.dropLast() }
        guard let bytes = Base64URL.decodeIfValid(payload) else {
            throw fail("payload is not base64url")
        }
        return (bytes, try DeviceEngagement(bytes: bytes))
    }
}
