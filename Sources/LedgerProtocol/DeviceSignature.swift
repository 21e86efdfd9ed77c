import Crypto
import Foundation
import TesseraJOSE
import TesseraCore

/// The device's signature on a request: Ed25519 over `method|path|timestamp|nonce|hex(SHA-256(body))`, sent as
/// `X-Device-Signature` (base64url) with `X-Device-Timestamp` (seconds since 1970) and `X-Device-Nonce` (single use).
public enum DeviceSignature {
    public static let signatureHeader = "X-Device-Signature"
    public static let timestampHeader = "X-Device-Timestamp"
    public static let nonceHeader = "X-Device-Nonce"
    /// Timestamps further than this from the ledger's clock are refused.
    public static let maxSkew: TimeInterval = 5 * 60

    public static func message(method: String, path: String, timestamp: Int64, nonce: String, body: Data) -> Data {
        let digest = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        return Data("\(method.uppercased())|\(path)|\(timestamp)|\(nonce)|\(digest)".utf8)
    }

    /// The three headers for a request.
    public static func headers(
        key: Curve25519.Signing.PrivateKey, method: String, path: String, timestamp: Int64, nonce: String, body: Data
    ) throws -> [(name: String, value: String)] {
        let signature = try key.signature(for: message(method: method, path: path, timestamp: timestamp, nonce: nonce, body: body))
        return [(signatureHeader, Base64URL.encode(signature)), (timestampHeader, String(timestamp)), (nonceHeader, nonce)]
    }

    public static func verify(
        signature: String, publicKey: Curve25519.Signing.PublicKey, method: String, path: String, timestamp: Int64,
        nonce: String, body: Data
    ) -> Bool {
        guard let raw = Base64URL.bytes(signature), raw.count == 64 else { return false }
        return publicKey.isValidSignature(raw, for: message(method: method, path: path, timestamp: timestamp, nonce: nonce, body: body))
    }
}
