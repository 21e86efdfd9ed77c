import Foundation
import TesseraCBOR

/// The protected bucket: `empty_or_serialized_map = bstr .cbor header_map / bstr .size 0`
/// (RFC 9052 §3).
///
/// The bytes inside the bstr are kept exactly as received (`rawBytes`) next to the decoded
/// map, because they — not a re-encoding — are what the signature or MAC covers
/// (RFC 9052 §4.4, §6.3).
///
/// ## Policy for an empty map sent as `h'a0'`
/// RFC 9052 §3 says an empty protected bucket is sent as a zero-length bstr, that recipients
/// must accept `h'a0'` too, and that the zero-length form is the one that goes into
/// `Sig_structure` / `MAC_structure`. Tessera does **not** substitute bytes: it always
/// authenticates the bytes as received. A message whose wire form carries `h'a0'` is
/// therefore checked over `h'a0'`; if its signer hashed `h''` instead, verification fails.
/// This is the behaviour of verifiers that embed the transmitted bytes verbatim (e.g.
/// google/coset). It makes the contested cose-wg/Examples cases `sign-pass-01` and
/// `mac-pass-01` fail (cose-wg/Examples issue #107), which the tests assert. Tessera never
/// produces `h'a0'`: an empty bucket it builds is the zero-length bstr.
public struct COSEProtectedHeader: Hashable, Sendable {
    /// The content of the protected bstr as received (or as encoded once when built).
    public let rawBytes: Data
    /// The decoded bucket.
    public let headers: COSEHeaders

    /// Reads the content of a received protected bstr; zero bytes is an empty bucket.
    public init(rawBytes: Data) throws(COSEError) {
        self.rawBytes = rawBytes
        if rawBytes.isEmpty {
            headers = COSEHeaders()
            return
        }
        if let algorithmOnly = Self.algorithmOnly(rawBytes) {
            headers = try COSEHeaders(map: CBORMap([CBORMap.Entry(key: .unsigned(1), value: algorithmOnly)]))
            return
        }
        let item: CBOR
        do { item = try CBOR.decode(rawBytes, options: .strict) } catch { throw .malformed(error) }
        guard case .map(let m) = item else { throw .protectedHeaderNotAMap }
        headers = try COSEHeaders(map: m)
    }

    /// The algorithm of `{1: alg}` when alg takes one byte (ES256 `a1 01 26`, EdDSA, HMAC 256/256, …), the
    /// protected bucket of nearly every message: read without the general decoder, which would accept these
    /// three bytes as the same map.
    static func algorithmOnly(_ bytes: Data) -> CBOR? {
        guard bytes.count == 3 else { return nil }
        let start = bytes.startIndex
        guard bytes[start] == 0xa1, bytes[start + 1] == 0x01 else { return nil }
        let alg = bytes[start + 2]
        switch alg {
        case 0x00...0x17: return .unsigned(UInt64(alg))
        case 0x20...0x37: return .negative(UInt64(alg - 0x20))
        default: return nil
        }
    }

    /// Encodes `headers` once, deterministically (RFC 8949 §4.2.1); an empty bucket becomes
    /// the zero-length bstr (RFC 9052 §3). The bytes are kept and never recomputed.
    public init(_ headers: COSEHeaders) {
        self.headers = headers.deterministicallyOrdered()
        rawBytes = headers.isEmpty ? Data() : headers.cbor.encoded(options: .deterministic)
    }

    /// An empty bucket, sent as the zero-length bstr.
    public static let empty = COSEProtectedHeader(COSEHeaders())

    /// The bstr that carries the bucket in a message.
    public var cbor: CBOR { .bytes(rawBytes) }
}
