import Foundation
import TesseraJOSE

/// Verifier metadata (§5.1 `client_metadata`, §11) — as sent in the request, or held for a pre-registered client.
/// Only the members §5.1 allows are read; the rest are ignored. Never a source of display names or logos.
public struct ClientMetadata: Sendable {
    /// The `jwks` keys that are valid JWKs, in order (unparseable entries are dropped: they are unusable).
    public let jwks: [JWK]
    /// `encrypted_response_enc_values_supported` (§5.1); nil means the default `A128GCM`.
    public let encryptedResponseEncValuesSupported: [String]?
    /// `vp_formats_supported` (§11.1).
    public let vpFormatsSupported: JSONObject?
    /// The object as received.
    public let json: JSONObject

    /// Reads the members this module uses from a `client_metadata` object; the object is kept in `json`.
    /// - Throws: `OpenID4VPError.invalidClientMetadata` when `jwks` has no `keys` array,
    ///   `encrypted_response_enc_values_supported` is not a non-empty array of strings, or `vp_formats_supported` is not an
    ///   object.
    public init(json: JSONObject) throws(OpenID4VPError) {
        self.json = json
        var keys: [JWK] = []
        if let jwks = json["jwks"] {
            guard let entries = jwks["keys"]?.arrayValue else { throw .invalidClientMetadata("jwks has no keys array") }
            for entry in entries {
                guard let object = entry.objectValue, let key = try? JWK(json: object) else { continue }
                keys.append(key)
            }
        }
        self.jwks = keys
        if let value = json["encrypted_response_enc_values_supported"] {
            guard let array = value.arrayValue, !array.isEmpty else {
                throw .invalidClientMetadata("encrypted_response_enc_values_supported is not a non-empty array")
            }
            var values: [String] = []
            for element in array {
                guard let text = element.stringValue else {
                    throw .invalidClientMetadata("encrypted_response_enc_values_supported holds a non-string")
                }
                values.append(text)
            }
            self.encryptedResponseEncValuesSupported = values
        } else {
            self.encryptedResponseEncValuesSupported = nil
        }
        if let value = json["vp_formats_supported"] {
            guard let object = value.objectValue else { throw .invalidClientMetadata("vp_formats_supported is not an object") }
            self.vpFormatsSupported = object
        } else {
            self.vpFormatsSupported = nil
        }
    }

    /// Metadata with no members (no keys, default encryption, no formats), for requests without any.
    public static let empty: ClientMetadata = {
        // An empty object always parses.
        (try? ClientMetadata(json: JSONObject())) ?? ClientMetadata(unchecked: JSONObject())
    }()

    private init(unchecked json: JSONObject) {
        self.json = json
        self.jwks = []
        self.encryptedResponseEncValuesSupported = nil
        self.vpFormatsSupported = nil
    }
}

/// The key and content encryption the response is encrypted with (§8.3).
public struct ResponseEncryption: Sendable, Hashable {
    /// The verifier's public key chosen from `jwks`.
    public let key: JWK
    /// The content encryption (`A128GCM` or `A256GCM`) the response JWE uses.
    public let enc: JWEContentEncryption

    /// The RFC 7638 thumbprint, for the mdoc OpenID4VPHandover (§B.2.6.1).
    public var keyThumbprint: Data { key.thumbprint() }

    /// §8.3: the first key the wallet can use — `use` absent or `enc`, `alg` present and `ECDH-ES`, an EC key
    /// on P-256/P-384/P-521, and a `kid` (required on every `jwks` key, §5.1); others are ignored. The `enc` is
    /// the wallet's most preferred value among the verifier's `encrypted_response_enc_values_supported`
    /// (default `A128GCM`).
    public static func select(
        metadata: ClientMetadata, preference: [JWEContentEncryption]
    ) throws(OpenID4VPError) -> ResponseEncryption {
        guard let key = metadata.jwks.first(where: isUsable) else { throw .noUsableEncryptionKey }
        let offered = metadata.encryptedResponseEncValuesSupported ?? [JWEContentEncryption.a128gcm.rawValue]
        guard let enc = preference.first(where: { offered.contains($0.rawValue) }) else {
            throw .unsupportedResponseEncryption(offered)
        }
        return ResponseEncryption(key: key.publicJWK, enc: enc)
    }

    static func isUsable(_ key: JWK) -> Bool {
        guard key.use == nil || key.use == "enc" else { return false }
        guard key.alg == "ECDH-ES" else { return false }
        guard key.kid != nil, key.kty == "EC", let curve = key.crv, ["P-256", "P-384", "P-521"].contains(curve) else {
            return false
        }
        if let operations = key.keyOperations, !operations.contains("deriveKey") && !operations.contains("deriveBits") {
            return false
        }
        return true
    }
}
