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
        Self.withUTF8(text) { bytes in base64URLDigest(bytes) }
    }

    /// `text`'s UTF-8 in place when its storage is contiguous (a String or a slice of one), copied otherwise.
    static func withUTF8<Result>(_ text: some StringProtocol, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) { return result }
        var copy = String(text)
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// base64url(digest(bytes)), encoded straight from the digest's storage (this runs once per Disclosure).
    func base64URLDigest(_ bytes: UnsafeRawBufferPointer) -> String {
        switch self {
        case .sha256: return SHA256.hash(data: bytes).withUnsafeBytes(DigestText.base64URL)
        case .sha384: return SHA384.hash(data: bytes).withUnsafeBytes(DigestText.base64URL)
        case .sha512: return SHA512.hash(data: bytes).withUnsafeBytes(DigestText.base64URL)
        }
    }

    /// The index key of the digest of `text` (§4.2.3), built without a String.
    func digestKey(of text: some StringProtocol) -> DigestKey {
        Self.withUTF8(text) { bytes in
            switch self {
            case .sha256: return SHA256.hash(data: bytes).withUnsafeBytes(DigestKey.init(digest:))
            case .sha384: return SHA384.hash(data: bytes).withUnsafeBytes(DigestKey.init(digest:))
            case .sha512: return SHA512.hash(data: bytes).withUnsafeBytes(DigestKey.init(digest:))
            }
        }
    }

    /// The algorithm named by a payload's `_sd_alg` (absent ⇒ sha-256, §4.1.1).
    static func of(payload: JSONObject) throws(SDJWTError) -> SDHashAlgorithm {
        guard let value = payload["_sd_alg"] else { return .sha256 }
        guard let name = value.stringValue else { throw .unsupportedHashAlgorithm(value.description) }
        guard let algorithm = SDHashAlgorithm(rawValue: name) else { throw .unsupportedHashAlgorithm(name) }
        return algorithm
    }
}

/// Unpadded base64url of a digest (RFC 4648 §5), written directly into the string's storage.
enum DigestText {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The length of the text of a `count`-byte digest.
    static func length(ofDigest count: Int) -> Int { count / 3 * 4 + (count % 3 == 0 ? 0 : count % 3 + 1) }

    static func base64URL(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: length(ofDigest: bytes.count)) { out in encode(bytes, into: out) }
    }

    /// Writes the text of `bytes` into `out` (at least `length(ofDigest:)` long); returns its length.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let count = bytes.count
        return alphabet.withUnsafeBufferPointer { table in
            var written = 0
            var index = 0
            while index + 3 <= count {
                let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out[written] = table[Int(word >> 18 & 63)]
                out[written + 1] = table[Int(word >> 12 & 63)]
                out[written + 2] = table[Int(word >> 6 & 63)]
                out[written + 3] = table[Int(word & 63)]
                written += 4
                index += 3
            }
            switch count - index {
            case 1:
                let word = UInt32(bytes[index]) << 16
                out[written] = table[Int(word >> 18 & 63)]
                out[written + 1] = table[Int(word >> 12 & 63)]
                written += 2
            case 2:
                let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                out[written] = table[Int(word >> 18 & 63)]
                out[written + 1] = table[Int(word >> 12 & 63)]
                out[written + 2] = table[Int(word >> 6 & 63)]
                written += 3
            default:
                break
            }
            return written
        }
    }
}
