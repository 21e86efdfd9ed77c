import Foundation

/// Writes data items one after another into one buffer, without building a `CBOR` tree: for structures whose
/// layout is fixed and large parts arrive already encoded (an mdoc DeviceResponse, ISO/IEC 18013-5 §8.3.2.1.2.2).
///
/// The caller is responsible for the shape: as many items after a head as it announces, and map keys written in
/// the order the encoding needs (`deterministicTextOrder` for core deterministic encoding, RFC 8949 §4.2.1).
/// Items given as `CBOR` are written with core deterministic encoding.
public struct CBORStreamWriter {
    private var writer: CBORWriter

    public init(capacity: Int = 256) {
        writer = CBORWriter(options: .deterministic, capacity: capacity)
    }

    /// The bytes written so far.
    public var data: Data { Data(writer.bytes) }

    public mutating func writeMapHead(count: Int) { writer.writeHead(5, UInt64(count)) }
    public mutating func writeArrayHead(count: Int) { writer.writeHead(4, UInt64(count)) }
    public mutating func writeUnsigned(_ value: UInt64) { writer.writeHead(0, value) }

    public mutating func writeText(_ text: String) {
        writer.writeHead(3, UInt64(text.utf8.count))
        writer.bytes.append(contentsOf: text.utf8)
    }

    /// A byte string holding `bytes`.
    public mutating func writeBytes(_ bytes: Data) {
        writer.writeHead(2, UInt64(bytes.count))
        writer.append(bytes)
    }

    /// An item that is already encoded: its bytes, unchanged.
    public mutating func writeEncoded(_ bytes: Data) { writer.append(bytes) }

    /// `24(h'…')` around `bytes`, which are kept unchanged (RFC 8949 §3.4.5.1).
    public mutating func writeTag24(_ bytes: Data) {
        writer.writeHead(6, CBORTag.encodedCBOR)
        writer.writeHead(2, UInt64(bytes.count))
        writer.append(bytes)
    }

    /// A whole item, with core deterministic encoding.
    public mutating func write(_ item: CBOR) { writer.write(item) }

    /// Text map keys in core deterministic order (RFC 8949 §4.2.1): the bytewise order of their encodings, which
    /// for text strings is shorter first (the head holds the length), then bytewise.
    /// Inlinable so that it is specialised for the caller's collection (a dictionary's keys, most often).
    @inlinable
    public static func deterministicTextOrder(_ keys: some Collection<String>) -> [String] {
        if keys.count < 2 { return Array(keys) }
        return keys.sorted { a, b in
            let (la, lb) = (a.utf8.count, b.utf8.count)
            return la != lb ? la < lb : a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }
}
