import Foundation
import TesseraCBOR

/// The `content type` header value (RFC 9052 §3.1, label 3): a CoAP Content-Format
/// number or a media-type string.
public enum COSEContentType: Hashable, Sendable {
    /// A CoAP Content-Format identifier (e.g. 0 = text/plain; charset=utf-8).
    case coapContentFormat(UInt64)
    /// A media type such as "application/cbor".
    case mediaType(String)

    public init(cbor: CBOR) throws(COSEError) {
        switch cbor {
        case .unsigned(let n): self = .coapContentFormat(n)
        case .text(let s): self = .mediaType(s)
        default:
            throw .invalidHeaderValue(label: .contentType, reason: "must be an unsigned integer or text string, found \(cbor.kindName)")
        }
    }

    public var cbor: CBOR {
        switch self {
        case .coapContentFormat(let n): return .unsigned(n)
        case .mediaType(let s): return .text(s)
        }
    }
}
