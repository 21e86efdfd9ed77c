import Foundation

/// base64url without padding (RFC 7515 §2, RFC 4648 §5), strict on input: the one codec of the toolkit (JOSE,
/// SD-JWT, NATS JWTs and nkeys signatures, the mdoc QR URI, the vault's and ledger's wire).
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Alphabet index of each byte, 0xFF for bytes outside the base64url alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// The four characters of a quantum looked up already shifted into place: table k holds a character's 6 bits
    /// at position k of the 24-bit group, and `invalidMark` (above the 24 bits) for bytes outside the alphabet, so
    /// that a quantum is four lookups ORed together and one check.
    private static let quantumTables: [UInt32] = {
        var tables = [UInt32](repeating: invalidMark, count: 4 * 256)
        for (index, byte) in alphabet.enumerated() {
            for position in 0..<4 { tables[position * 256 + Int(byte)] = UInt32(index) << (18 - 6 * position) }
        }
        return tables
    }()
    private static let invalidMark: UInt32 = 0x0100_0000

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out.append(alphabet[Int(word >> 18 & 0x3F)])
            out.append(alphabet[Int(word >> 12 & 0x3F)])
            out.append(alphabet[Int(word >> 6 & 0x3F)])
            out.append(alphabet[Int(word & 0x3F)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let word = UInt32(input[index]) << 16
            out.append(alphabet[Int(word >> 18 & 0x3F)])
            out.append(alphabet[Int(word >> 12 & 0x3F)])
        case 2:
            let word = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out.append(alphabet[Int(word >> 18 & 0x3F)])
            out.append(alphabet[Int(word >> 12 & 0x3F)])
            out.append(alphabet[Int(word >> 6 & 0x3F)])
        default:
            break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded base64url. Strict: no padding, no `+` or `/`, no white space, a length that is not 1
    /// modulo 4, and zero trailing bits (so each byte string has exactly one encoding; RFC 4648 §3.5).
    ///
    /// Inlinable so that a caller in another module gets it specialised for its string type.
    @inlinable
    public static func decode(_ text: some StringProtocol) throws(Base64URLError) -> Data {
        // Straight from the string's UTF-8 storage; a copy only for text that is not stored contiguously.
        if let result = text.utf8.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(Base64URLError) -> Data in try decode(utf8: buffer) }
        }) {
            return try result.get()
        }
        var copy = String(text)
        let result = copy.withUTF8 { buffer in Result { () throws(Base64URLError) -> Data in try decode(utf8: buffer) } }
        return try result.get()
    }

    /// `decode(_:)`, or nil for text that is not unpadded base64url.
    @inlinable
    public static func decodeIfValid(_ text: some StringProtocol) -> Data? {
        try? decode(text)
    }

    /// Decodes the base64url text in `buffer` (see `decode(_:)`).
    public static func decode(utf8 buffer: UnsafeBufferPointer<UInt8>) throws(Base64URLError) -> Data {
        guard let length = decodedLength(buffer.count) else { throw .invalid }
        var out = Data(count: length)
        let valid = out.withUnsafeMutableBytes { raw in decode(buffer, into: raw) }
        guard valid else { throw .invalid }
        return out
    }

    /// Decodes the base64url text in `buffer` into a temporary buffer (on the stack when small) and hands it to
    /// `body`: for bytes that are only read once (a JOSE header, a Disclosure's JSON), no intermediate `Data`.
    public static func withDecoded<Result>(
        utf8 buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) throws(Base64URLError) -> Result {
        guard let length = decodedLength(buffer.count) else { throw .invalid }
        let decoded: Result? = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(length, 1)) { scratch in
            guard decode(buffer, into: UnsafeMutableRawBufferPointer(scratch)) else { return nil }
            return body(UnsafeBufferPointer(rebasing: scratch[..<length]))
        }
        guard let decoded else { throw .invalid }
        return decoded
    }

    /// The number of bytes `count` base64url characters decode to; nil for a length that no encoding has.
    public static func decodedLength(_ count: Int) -> Int? {
        guard count % 4 != 1 else { return nil }
        return count / 4 * 3 + max(0, count % 4 - 1)
    }

    /// Decodes `buffer` into the first `decodedLength(buffer.count)` bytes of `raw`; false on any byte outside the
    /// alphabet or non-zero trailing bits.
    private static func decode(_ buffer: UnsafeBufferPointer<UInt8>, into raw: UnsafeMutableRawBufferPointer) -> Bool {
        let count = buffer.count
        guard count > 0 else { return true }
        guard let input = buffer.baseAddress, let output = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let length = decodedLength(count), raw.count >= length
        else { return false }
        // Through raw pointers: every read is below `count` and every write below `length`, both checked above.
        let whole = quantumTables.withUnsafeBufferPointer { tablesBuffer -> Bool in
            guard let tables = tablesBuffer.baseAddress else { return false }
            var written = 0
            var index = 0
            while index + 4 <= count {
                let word = tables[Int(input[index])] | tables[256 + Int(input[index + 1])]
                    | tables[512 + Int(input[index + 2])] | tables[768 + Int(input[index + 3])]
                if word >= invalidMark { return false }
                output[written] = UInt8(truncatingIfNeeded: word >> 16)
                output[written + 1] = UInt8(truncatingIfNeeded: word >> 8)
                output[written + 2] = UInt8(truncatingIfNeeded: word)
                written += 3
                index += 4
            }
            return true
        }
        guard whole else { return false }
        let tail = count % 4
        guard tail != 0 else { return true }
        return decodeTable.withUnsafeBufferPointer { table in
            let index = count - tail
            let written = length - (tail - 1)
            switch tail {
            case 2:
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                if (a | b) & 0xC0 != 0 || b & 0x0F != 0 { return false }
                output[written] = a << 2 | b >> 4
            default:  // 3: tail 1 has no decodedLength
                let a = table[Int(input[index])], b = table[Int(input[index + 1])], c = table[Int(input[index + 2])]
                if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 { return false }
                output[written] = a << 2 | b >> 4
                output[written + 1] = (b & 0x0F) << 4 | c >> 2
            }
            return true
        }
    }
}

/// Text that is not unpadded base64url (a character outside the alphabet, padding, a length of 1 modulo 4, or
/// non-zero trailing bits).
public enum Base64URLError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalid

    public var description: String { "not unpadded base64url (RFC 4648 §5)" }
}
