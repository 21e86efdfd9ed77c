import Foundation

extension CBOR {
    /// The encoding of an array whose elements arrive already encoded; each element's bytes
    /// are copied unchanged. For structures that embed a received item by value, e.g.
    /// ISO 18013-5 `DeviceAuthentication = ["DeviceAuthentication", SessionTranscript, …]`,
    /// where the SessionTranscript must keep the bytes both parties hashed.
    ///
    /// The caller vouches that each element is exactly one well-formed data item.
    public static func encodeArray(encodedElements: [Data]) -> Data {
        var writer = CBORWriter(options: .deterministic, capacity: encodedElements.reduce(9) { $0 + $1.count })
        writer.writeHead(4, UInt64(encodedElements.count))
        for element in encodedElements { writer.append(element) }
        return Data(writer.bytes)
    }

    /// `24(h'…')`: the encoding of `bytes` wrapped as an encoded CBOR data item (RFC 8949 §3.4.5.1).
    public static func encodeTag24(_ bytes: Data) -> Data {
        var out = Data(tag24Prefix(byteCount: bytes.count))
        out.append(bytes)
        return out
    }

    /// The bytes that come before `byteCount` embedded bytes in their `24(h'…')` encoding (tag head, then byte
    /// string head), so that the tagged form can be hashed or written without copying the embedded bytes.
    public static func tag24Prefix(byteCount: Int) -> [UInt8] {
        var writer = CBORWriter(options: .deterministic, capacity: 11)
        writer.writeHead(6, CBORTag.encodedCBOR)
        writer.writeHead(2, UInt64(byteCount))
        return writer.bytes
    }
}

/// An element of `CBOR.encodeTag24Array(_:)`.
public enum CBORSplicedElement {
    /// A data item already encoded; its bytes are copied unchanged.
    case encoded(Data)
    /// A text string.
    case text(String)
    /// `24(h'…')` around these encoded bytes.
    case tag24(Data)
}

extension CBOR {
    /// `24(h'…')` around the array of `elements`, written in one buffer: the `DeviceAuthenticationBytes` and
    /// `ReaderAuthenticationBytes` form (ISO/IEC 18013-5 §9.1.3.4, §9.1.4), whose SessionTranscript and embedded
    /// items keep the bytes as exchanged. Same bytes as `encodeTag24(encodeArray(encodedElements:))`.
    public static func encodeTag24Array(_ elements: [CBORSplicedElement]) -> Data {
        var arrayLength = CBORWriter.headLength(UInt64(elements.count))
        for element in elements {
            switch element {
            case .encoded(let bytes): arrayLength += bytes.count
            case .text(let text): arrayLength += CBORWriter.headLength(UInt64(text.utf8.count)) + text.utf8.count
            case .tag24(let bytes): arrayLength += 2 + CBORWriter.headLength(UInt64(bytes.count)) + bytes.count
            }
        }
        var writer = CBORWriter(options: .deterministic, capacity: 2 + CBORWriter.headLength(UInt64(arrayLength)) + arrayLength)
        writer.writeHead(6, CBORTag.encodedCBOR)
        writer.writeHead(2, UInt64(arrayLength))
        writer.writeHead(4, UInt64(elements.count))
        for element in elements {
            switch element {
            case .encoded(let bytes):
                writer.append(bytes)
            case .text(let text):
                writer.writeHead(3, UInt64(text.utf8.count))
                writer.bytes.append(contentsOf: text.utf8)
            case .tag24(let bytes):
                writer.writeHead(6, CBORTag.encodedCBOR)
                writer.writeHead(2, UInt64(bytes.count))
                writer.append(bytes)
            }
        }
        return Data(writer.bytes)
    }
}
