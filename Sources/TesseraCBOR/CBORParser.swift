import Foundation

extension CBOR {
    /// Decodes exactly one data item that spans all of `bytes` (RFC 8949 §5.3 strict decoding).
    ///
    /// `bytes` may be a slice of a larger buffer (`Data` slice, `ArraySlice`); it is read in
    /// place, and error offsets count from its first byte.
    public static func decode(_ bytes: some ContiguousBytes, options: CBORDecodingOptions = .strict) throws(CBORError)
        -> CBOR
    {
        let (value, end, count) = try decodePrefixImpl(bytes, options: options)
        guard end == count else { throw .trailingBytes(offset: end) }
        return value
    }

    /// Decodes the first data item of `bytes` and returns it with the number of bytes it took;
    /// bytes after it are left for the caller (CBOR sequences, RFC 8742; streamed input).
    public static func decodePrefix(_ bytes: some ContiguousBytes, options: CBORDecodingOptions = .strict)
        throws(CBORError) -> (value: CBOR, length: Int)
    {
        let (value, end, _) = try decodePrefixImpl(bytes, options: options)
        return (value, end)
    }

    private static func decodePrefixImpl(_ bytes: some ContiguousBytes, options: CBORDecodingOptions)
        throws(CBORError) -> (CBOR, Int, Int)
    {
        let result: Result<(CBOR, Int, Int), CBORError> = bytes.withUnsafeBytes { raw in
            var parser = CBORParser(raw, options: options)
            do throws(CBORError) {
                let value = try parser.readItem(depth: 0)
                return .success((value, parser.position, raw.count))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// The argument of an initial byte (§3): a value, or indefinite length.
enum CBORHead {
    case value(UInt64)
    case indefinite
}

/// A single-pass reader over borrowed bytes. It never copies the input; byte and
/// text strings are copied out only when they become values.
struct CBORParser {
    let base: UnsafeRawBufferPointer
    private(set) var position = 0
    private var items = 0
    let options: CBORDecodingOptions

    init(_ base: UnsafeRawBufferPointer, options: CBORDecodingOptions) {
        self.base = base
        self.options = options
    }

    var remaining: Int { base.count - position }

    // MARK: Heads

    @inline(__always)
    mutating func readByte(itemStart: Int) throws(CBORError) -> UInt8 {
        guard position < base.count else { throw .unexpectedEnd(offset: itemStart) }
        let b = base[position]
        position += 1
        return b
    }

    @inline(__always)
    mutating func readBigEndian<T: FixedWidthInteger>(_: T.Type, itemStart: Int) throws(CBORError) -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw .unexpectedEnd(offset: itemStart) }
        let v = base.loadUnaligned(fromByteOffset: position, as: T.self)
        position += size
        return T(bigEndian: v)
    }

    /// Reads the argument for additional information `ai` of a major type other than 7.
    @inline(__always)
    mutating func readArgument(_ ai: UInt8, major: UInt8, itemStart: Int) throws(CBORError) -> CBORHead {
        let value: UInt64
        switch ai {
        case 0..<24: return .value(UInt64(ai))
        case 24:
            value = UInt64(try readByte(itemStart: itemStart))
            if options.deterministic && value < 24 { throw .nonShortestForm(offset: itemStart) }
        case 25:
            value = UInt64(try readBigEndian(UInt16.self, itemStart: itemStart))
            if options.deterministic && value <= 0xff { throw .nonShortestForm(offset: itemStart) }
        case 26:
            value = UInt64(try readBigEndian(UInt32.self, itemStart: itemStart))
            if options.deterministic && value <= 0xffff { throw .nonShortestForm(offset: itemStart) }
        case 27:
            value = try readBigEndian(UInt64.self, itemStart: itemStart)
            if options.deterministic && value <= 0xffff_ffff { throw .nonShortestForm(offset: itemStart) }
        case 31:
            guard major >= 2 && major <= 5 else {
                throw .indefiniteLengthNotAllowed(majorType: major, offset: itemStart)
            }
            if options.deterministic { throw .indefiniteLengthInDeterministicMode(offset: itemStart) }
            return .indefinite
        default:
            throw .reservedAdditionalInfo(ai, offset: itemStart)
        }
        return .value(value)
    }

    /// A declared length, checked against the bytes left so that a forged header
    /// cannot make the decoder allocate more than the input could hold.
    @inline(__always)
    func checkedLength(_ declared: UInt64, minimumBytesPerUnit: Int, itemStart: Int) throws(CBORError) -> Int {
        let maxUnits = UInt64(remaining / minimumBytesPerUnit)
        guard declared <= maxUnits else {
            throw .lengthExceedsInput(declared: declared, remaining: remaining, offset: itemStart)
        }
        return Int(declared)
    }

    // MARK: Items

    mutating func readItem(depth: Int) throws(CBORError) -> CBOR {
        let start = position
        items += 1
        if items > options.maxItems { throw .itemLimitExceeded(limit: options.maxItems, offset: start) }
        let initial = try readByte(itemStart: start)
        let major = initial >> 5
        let ai = initial & 0x1f
        switch major {
        case 0:
            guard case .value(let v) = try readArgument(ai, major: major, itemStart: start) else { break }
            return .unsigned(v)
        case 1:
            guard case .value(let v) = try readArgument(ai, major: major, itemStart: start) else { break }
            return .negative(v)
        case 2:
            switch try readArgument(ai, major: major, itemStart: start) {
            case .value(let n): return .bytes(try readBytes(n, itemStart: start))
            case .indefinite: return .bytes(try readChunks(major: 2, itemStart: start))
            }
        case 3:
            let data: Data
            switch try readArgument(ai, major: major, itemStart: start) {
            case .value(let n):
                let count = try checkedLength(n, minimumBytesPerUnit: 1, itemStart: start)
                let s = try makeString(position, count, itemStart: start)
                position += count
                return .text(s)
            case .indefinite: data = try readChunks(major: 3, itemStart: start)
            }
            // Every chunk was validated on its own; whole characters cannot span chunks (§3.2.3).
            return .text(String(decoding: data, as: UTF8.self))
        case 4:
            return .array(try readArray(ai, depth: depth, itemStart: start))
        case 5:
            return .map(try readMap(ai, depth: depth, itemStart: start))
        case 6:
            guard case .value(let tag) = try readArgument(ai, major: major, itemStart: start) else { break }
            guard depth < options.maxDepth else { throw .depthLimitExceeded(limit: options.maxDepth, offset: start) }
            let content = try readItem(depth: depth + 1)
            try Self.validateTag(tag, content, offset: start)
            if options.deterministic, tag == CBORTag.positiveBignum || tag == CBORTag.negativeBignum,
                case .bytes(let magnitude) = content, magnitude.count <= 8 || magnitude.first == 0
            {
                // Preferred serialization (§3.4.3): no leading zeros, and a plain integer when it fits.
                throw .nonShortestForm(offset: start)
            }
            return .tagged(tag, content)
        default:
            return try readSimpleOrFloat(ai, itemStart: start)
        }
        // Reached only if readArgument returned indefinite for major 0, 1 or 6, which it does not.
        throw .indefiniteLengthNotAllowed(majorType: major, offset: start)
    }

    mutating func readBytes(_ n: UInt64, itemStart: Int) throws(CBORError) -> Data {
        let count = try checkedLength(n, minimumBytesPerUnit: 1, itemStart: itemStart)
        let data = count == 0 ? Data() : Data(UnsafeRawBufferPointer(rebasing: base[position..<(position + count)]))
        position += count
        return data
    }

    func makeString(_ from: Int, _ count: Int, itemStart: Int) throws(CBORError) -> String {
        if count == 0 { return "" }
        let slice = UnsafeRawBufferPointer(rebasing: base[from..<(from + count)]).bindMemory(to: UInt8.self)
        guard UTF8Validation.isValid(slice) else { throw .invalidUTF8(offset: itemStart) }
        return String(decoding: slice, as: UTF8.self)
    }

    /// Indefinite-length string: definite chunks of the same major type until "break" (§3.2.3).
    mutating func readChunks(major: UInt8, itemStart: Int) throws(CBORError) -> Data {
        var out = Data()
        while true {
            let chunkStart = position
            let b = try readByte(itemStart: itemStart)
            if b == 0xff { return out }
            items += 1
            if items > options.maxItems { throw .itemLimitExceeded(limit: options.maxItems, offset: chunkStart) }
            guard b >> 5 == major, b & 0x1f != 31 else { throw .invalidChunk(offset: chunkStart) }
            guard case .value(let n) = try readArgument(b & 0x1f, major: major, itemStart: chunkStart) else {
                throw .invalidChunk(offset: chunkStart)
            }
            let count = try checkedLength(n, minimumBytesPerUnit: 1, itemStart: chunkStart)
            if major == 3 {
                // Each chunk must itself be valid UTF-8 (§3.2.3).
                _ = try makeString(position, count, itemStart: chunkStart)
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: base[position..<(position + count)]))
            position += count
        }
    }

    mutating func readArray(_ ai: UInt8, depth: Int, itemStart: Int) throws(CBORError) -> [CBOR] {
        guard depth < options.maxDepth else { throw .depthLimitExceeded(limit: options.maxDepth, offset: itemStart) }
        switch try readArgument(ai, major: 4, itemStart: itemStart) {
        case .value(let n):
            let count = try checkedLength(n, minimumBytesPerUnit: 1, itemStart: itemStart)
            var array: [CBOR] = []
            array.reserveCapacity(count)
            for _ in 0..<count { array.append(try readItem(depth: depth + 1)) }
            return array
        case .indefinite:
            var array: [CBOR] = []
            while try !atBreak(itemStart: itemStart) { array.append(try readItem(depth: depth + 1)) }
            return array
        }
    }

    /// Consumes a "break" if one is next.
    mutating func atBreak(itemStart: Int) throws(CBORError) -> Bool {
        guard position < base.count else { throw .unexpectedEnd(offset: itemStart) }
        if base[position] == 0xff {
            position += 1
            return true
        }
        return false
    }

    mutating func readMap(_ ai: UInt8, depth: Int, itemStart: Int) throws(CBORError) -> CBORMap {
        guard depth < options.maxDepth else { throw .depthLimitExceeded(limit: options.maxDepth, offset: itemStart) }
        var entries: [CBORMap.Entry] = []
        var keys = DuplicateKeyCheck()
        var previousKey: Range<Int>? = nil
        func readEntry(_ p: inout CBORParser) throws(CBORError) {
            let keyStart = p.position
            let key = try p.readItem(depth: depth + 1)
            let keyRange = keyStart..<p.position
            if p.options.deterministic, let prev = previousKey, !p.bytewiseLess(prev, keyRange) {
                throw .unsortedMapKeys(offset: keyStart)
            }
            previousKey = keyRange
            guard keys.insert(key, into: entries) else { throw .duplicateMapKey(offset: keyStart) }
            let value = try p.readItem(depth: depth + 1)
            entries.append(CBORMap.Entry(key: key, value: value))
        }
        switch try readArgument(ai, major: 5, itemStart: itemStart) {
        case .value(let n):
            let count = try checkedLength(n, minimumBytesPerUnit: 2, itemStart: itemStart)
            entries.reserveCapacity(count)
            keys.expectedCount = count
            for _ in 0..<count { try readEntry(&self) }
        case .indefinite:
            while try !atBreak(itemStart: itemStart) { try readEntry(&self) }
        }
        return CBORMap(entries)
    }

    /// memcmp order of two encoded keys (§4.2.1): strictly increasing means sorted and unique.
    func bytewiseLess(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        let pa = UnsafeRawBufferPointer(rebasing: base[a])
        let pb = UnsafeRawBufferPointer(rebasing: base[b])
        let n = Swift.min(pa.count, pb.count)
        if n > 0, let sa = pa.baseAddress, let sb = pb.baseAddress {
            let c = memcmp(sa, sb, n)
            if c != 0 { return c < 0 }
        }
        return pa.count < pb.count
    }

    mutating func readSimpleOrFloat(_ ai: UInt8, itemStart: Int) throws(CBORError) -> CBOR {
        switch ai {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(ai)
        case 24:
            let v = try readByte(itemStart: itemStart)
            guard v >= 32 else { throw .invalidSimpleValue(v, offset: itemStart) }
            return .simple(v)
        case 25:
            let bits = try readBigEndian(UInt16.self, itemStart: itemStart)
            let f = Float16Bits.toFloat(bits)
            if options.deterministic && f.isNaN && bits != 0x7e00 { throw .nonShortestForm(offset: itemStart) }
            return .half(f)
        case 26:
            let f = Float(bitPattern: try readBigEndian(UInt32.self, itemStart: itemStart))
            if options.deterministic && (f.isNaN || Float16Bits.exact(f) != nil) {
                throw .nonShortestForm(offset: itemStart)
            }
            return .float(f)
        case 27:
            let d = Double(bitPattern: try readBigEndian(UInt64.self, itemStart: itemStart))
            if options.deterministic && (d.isNaN || Double(Float(d)) == d) { throw .nonShortestForm(offset: itemStart) }
            return .double(d)
        case 31:
            throw .unexpectedBreak(offset: itemStart)
        default:
            throw .reservedAdditionalInfo(ai, offset: itemStart)
        }
    }

    /// Content types of the tags Tessera relies on (RFC 8949 §3.4, RFC 8943).
    static func validateTag(_ tag: UInt64, _ content: CBOR, offset: Int) throws(CBORError) {
        let ok: Bool
        switch tag {
        case CBORTag.dateTimeString, CBORTag.fullDate: ok = content.textValue != nil
        case CBORTag.epochDateTime:
            switch content {
            case .unsigned, .negative, .half, .float, .double: ok = true
            default: ok = false
            }
        case CBORTag.positiveBignum, CBORTag.negativeBignum, CBORTag.encodedCBOR: ok = content.bytesValue != nil
        default: ok = true
        }
        if !ok { throw .invalidTagContent(tag: tag, offset: offset) }
    }
}

/// Tag numbers with a meaning in Tessera (IANA CBOR Tags registry).
public enum CBORTag {
    public static let dateTimeString: UInt64 = 0
    public static let epochDateTime: UInt64 = 1
    public static let positiveBignum: UInt64 = 2
    public static let negativeBignum: UInt64 = 3
    public static let encodedCBOR: UInt64 = 24
    public static let fullDate: UInt64 = 1004
    public static let coseSign1: UInt64 = 18
    public static let coseMac0: UInt64 = 17
}
