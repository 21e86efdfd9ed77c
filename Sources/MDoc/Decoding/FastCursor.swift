import Foundation
import TesseraCBOR

/// A forward reader over the bytes of a structure whose layout is known, for the encodings senders use: definite
/// lengths and each known key once. It builds the structure's values without a decoded tree, the fast path of a
/// structure reader on the holder's hot path.
///
/// It gives up (`GiveUp`) on anything it does not handle: an indefinite length, an unknown or repeated key, a
/// value of another type, a non-shortest tag head, malformed bytes. The caller then reads the structure through
/// the decoded tree, which reads the unusual encoding or reports the error with its path. So the fast path accepts
/// only what the tree path accepts, and builds the same value; the mdoc fuzz targets check both.
struct FastCursor {
    struct GiveUp: Error {}

    private let base: UnsafeRawBufferPointer
    private(set) var position = 0

    /// Inputs up to this size only: each item takes at least one byte, so none of them can pass the strict
    /// decoder's item limit.
    static let maxInput = CBORDecodingOptions.strict.maxItems

    init(_ base: UnsafeRawBufferPointer) throws(GiveUp) {
        guard base.count <= Self.maxInput else { throw GiveUp() }
        self.base = base
    }

    var isAtEnd: Bool { position == base.count }

    /// The argument of a head of major type `major` (RFC 8949 §3); definite lengths only.
    private mutating func head(_ major: UInt8) throws(GiveUp) -> UInt64 {
        guard position < base.count, base[position] >> 5 == major else { throw GiveUp() }
        let ai = base[position] & 0x1f
        position += 1
        let size: Int
        switch ai {
        case 0..<24: return UInt64(ai)
        case 24: size = 1
        case 25: size = 2
        case 26: size = 4
        case 27: size = 8
        default: throw GiveUp()  // indefinite length or a reserved value
        }
        guard base.count - position >= size else { throw GiveUp() }
        var value: UInt64 = 0
        for offset in 0..<size { value = value << 8 | UInt64(base[position + offset]) }
        position += size
        return value
    }

    /// The count of an array (major 4) or map (major 5), at most the bytes left (each element takes one or more).
    mutating func count(_ major: UInt8) throws(GiveUp) -> Int {
        let declared = try head(major)
        guard declared <= UInt64(base.count - position) else { throw GiveUp() }
        return Int(declared)
    }

    /// The content of a byte (2) or text (3) string, in place.
    private mutating func stringBytes(_ major: UInt8) throws(GiveUp) -> UnsafeRawBufferPointer {
        let declared = try head(major)
        guard declared <= UInt64(base.count - position) else { throw GiveUp() }
        let range = position..<(position + Int(declared))
        position = range.upperBound
        return UnsafeRawBufferPointer(rebasing: base[range])
    }

    mutating func bytes() throws(GiveUp) -> Data { Data(try stringBytes(2)) }

    mutating func text() throws(GiveUp) -> String {
        guard let text = CBOR.validText(try stringBytes(3)) else { throw GiveUp() }
        return text
    }

    /// A text map key compared with `expected` in place; false (nothing consumed) for any other key.
    mutating func key(_ expected: StaticString) throws(GiveUp) -> Bool {
        let start = position
        let key = try stringBytes(3)
        let wanted = UnsafeRawBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount)
        if key.elementsEqual(wanted) { return true }
        position = start
        return false
    }

    mutating func bool() throws(GiveUp) -> Bool {
        guard position < base.count else { throw GiveUp() }
        switch base[position] {
        case 0xf4: position += 1; return false
        case 0xf5: position += 1; return true
        default: throw GiveUp()
        }
    }

    /// Consumes null or undefined if one is next (an optional field that is absent).
    mutating func skipNull() -> Bool {
        guard position < base.count, base[position] == 0xf6 || base[position] == 0xf7 else { return false }
        position += 1
        return true
    }

    /// `24(h'…')` with the shortest tag head: the embedded bytes, in place.
    mutating func tag24() throws(GiveUp) -> UnsafeRawBufferPointer {
        guard base.count - position >= 2, base[position] == 0xd8, base[position + 1] == 24 else { throw GiveUp() }
        position += 2
        return try stringBytes(2)
    }

    /// The next item decoded strictly as a tree, as the whole input's decoding would at `depth`.
    mutating func item(atDepth depth: Int) throws(GiveUp) -> CBOR {
        let strict = CBORDecodingOptions.strict
        guard depth < strict.maxDepth else { throw GiveUp() }
        let rest = UnsafeRawBufferPointer(rebasing: base[position...])
        do throws(CBORError) {
            let (value, length) = try CBOR.decodePrefix(rest, options: CBORDecodingOptions(maxDepth: strict.maxDepth - depth))
            position += length
            return value
        } catch {
            throw GiveUp()
        }
    }

    /// Runs `read` over `data`, which it must consume exactly; nil when it gives up.
    static func read<T>(_ data: Data, _ read: (inout FastCursor) throws(GiveUp) -> T) -> T? {
        data.withUnsafeBytes { raw in
            do throws(GiveUp) {
                var cursor = try FastCursor(raw)
                let value = try read(&cursor)
                return cursor.isAtEnd ? value : nil
            } catch {
                return nil
            }
        }
    }
}
