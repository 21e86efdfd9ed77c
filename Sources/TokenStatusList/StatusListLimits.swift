import Foundation
import TesseraCBOR
import TesseraJOSE

/// Bounds on what a reader accepts, so that no input makes it allocate or work without limit (TSL §11.5).
public struct StatusListLimits: Sendable, Hashable {
    /// Largest decompressed byte array of `lst`, the guard against a decompression bomb.
    public var maxListBytes: Int
    /// Largest Status List Token: characters of a compact JWS, bytes of a CWT.
    public var maxTokenBytes: Int
    /// Deepest nesting of JSON or CBOR inside a token or a Status List.
    public var maxDepth: Int

    /// Limits with the given values.
    public init(maxListBytes: Int, maxTokenBytes: Int, maxDepth: Int = 16) {
        self.maxListBytes = maxListBytes
        self.maxTokenBytes = maxTokenBytes
        self.maxDepth = maxDepth
    }

    /// 16 MiB of statuses (2^27 entries of 1 bit), tokens up to 8 MiB, nesting up to 16 levels.
    public static let `default` = StatusListLimits(maxListBytes: 16 << 20, maxTokenBytes: 8 << 20)

    /// What a compact JWS token is parsed with.
    var jose: JOSELimits {
        JOSELimits(maxCompactLength: maxTokenBytes, json: JSONLimits(maxBytes: maxTokenBytes, maxDepth: maxDepth))
    }

    /// What CBOR tokens and lists are decoded with: strict RFC 8949 §5.3 decoding within the depth limit.
    var cbor: CBORDecodingOptions { CBORDecodingOptions(maxDepth: maxDepth, maxItems: 1 << 16) }

    /// Received CBOR (a CWT Status List Token, or a CBOR Status List on its own): at most `maxTokenBytes` bytes,
    /// exactly one data item decoded with `cbor`; a decoding failure becomes `failure("not CBOR (…)")`.
    func decodeCBOR(_ bytes: Data, failure: (String) -> StatusListError) throws(StatusListError) -> CBOR {
        guard bytes.count <= maxTokenBytes else { throw .tokenTooLarge(length: bytes.count, limit: maxTokenBytes) }
        do {
            return try CBOR.decode(bytes, options: cbor)
        } catch {
            throw failure("not CBOR (\(error))")
        }
    }
}
