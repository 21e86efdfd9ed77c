import Crypto
import Foundation
import TesseraJOSE

/// The hash algorithm of `_sd_alg` (§4.1.1), named as in the IANA Named Information Hash Algorithm registry.
/// sha-256 is the default (when `_sd_alg` is absent) and what this library issues; sha-384 and sha-512 are accepted.
public enum SDHashAlgorithm: String, Sendable, CaseIterable {
    case sha256 = "sha-256"
    case sha384 = "sha-384"
    case sha512 = "sha-512"

    /// The digest of `bytes`.
    public func digest(_ bytes: some DataProtocol) -> Data {
        switch self {
        case .sha256: return Data(SHA256.hash(data: bytes))
        case .sha384: return Data(SHA384.hash(data: bytes))
        case .sha512: return Data(SHA512.hash(data: bytes))
        }
    }

    /// base64url(digest(ASCII(text))): the form of Disclosure digests (§4.2.3) and `sd_hash` (§4.3.1).
    public func base64URLDigest(of text: some StringProtocol) -> String {
        var digest: String?
        text.utf8.withContiguousStorageIfAvailable { buffer in
            digest = Base64URL.encode(self.digest(UnsafeRawBufferPointer(buffer)))
        }
        if let digest { return digest }
        return Base64URL.encode(self.digest(Array(text.utf8)))
    }

    /// The algorithm named by a payload's `_sd_alg` (absent ⇒ sha-256, §4.1.1).
    static func of(payload: JSONObject) throws(SDJWTError) -> SDHashAlgorithm {
        guard let value = payload["_sd_alg"] else { return .sha256 }
        guard let name = value.stringValue else { throw .unsupportedHashAlgorithm(value.description) }
        guard let algorithm = SDHashAlgorithm(rawValue: name) else { throw .unsupportedHashAlgorithm(name) }
        return algorithm
    }
}
