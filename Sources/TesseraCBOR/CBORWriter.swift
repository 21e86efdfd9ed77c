import Foundation

/// How a `CBOR` value is turned into bytes. Integers and lengths always use the
/// shortest argument (preferred serialization, RFC 8949 §4.1) and lengths are
/// always definite.
public struct CBOREncodingOptions: Sendable, Equatable {
    public enum MapKeyOrder: Sendable, Equatable {
        /// Keys in the order the value holds them.
        case preserved
        /// Bytewise lexicographic order of the encoded keys: core deterministic encoding (§4.2.1).
        case bytewise
        /// Shorter encoded key first, then bytewise: the RFC 7049 canonical order (§4.2.3).
        case lengthFirst
    }

    public var mapKeyOrder: MapKeyOrder
    /// Preferred serialization of numbers (§4.2.1, §3.4.3): each float in the shortest width that holds
    /// it exactly, NaN as `f97e00`, and bignums without leading zeros (as plain integers when they fit).
    /// When false, floats keep the width their case names and bignums their bytes.
    public var shortestFloats: Bool

    public init(mapKeyOrder: MapKeyOrder, shortestFloats: Bool) {
        self.mapKeyOrder = mapKeyOrder
        self.shortestFloats = shortestFloats
    }

    /// Core deterministic encoding (§4.2.1).
    public static let deterministic = CBOREncodingOptions(mapKeyOrder: .bytewise, shortestFloats: true)
    /// Length-first deterministic encoding (§4.2.3).
    public static let lengthFirst = CBOREncodingOptions(mapKeyOrder: .lengthFirst, shortestFloats: true)
    /// Keys and float widths as held.
    public static let preserving = CBOREncodingOptions(mapKeyOrder: .preserved, shortestFloats: false)
}

extension CBOR {
    /// The encoded bytes of this item.
    public func encoded(options: CBOREncodingOptions = .deterministic) -> Data {
        Data(encodedBytes(options: options))
    }

    /// The encoded bytes of this item as an array.
    public func encodedBytes(options: CBOREncodingOptions = .deterministic) -> [UInt8] {
        var writer = CBORWriter(options: options)
        writer.write(self)
        return writer.bytes
    }
}

struct CBORWriter {
    var bytes: [UInt8] = []
    let options: CBOREncodingOptions

    init(options: CBOREncodingOptions, capacity: Int = 256) {
        self.options = options
        bytes.reserveCapacity(capacity)
    }

    /// How many bytes `writeHead` writes for `value` (RFC 8949 §3: the shortest form).
    static func headLength(_ value: UInt64) -> Int {
        switch value {
        case 0..<24: return 1
        case 24...0xff: return 2
        case 0x100...0xffff: return 3
        case 0x10000...0xffff_ffff: return 5
        default: return 9
        }
    }

    @inline(__always)
    mutating func writeHead(_ major: UInt8, _ value: UInt64) {
        let m = major << 5
        switch value {
        case 0..<24: bytes.append(m | UInt8(value))
        case 24...0xff: bytes.append(m | 24); bytes.append(UInt8(value))
        case 0x100...0xffff: bytes.append(m | 25); appendBigEndian(UInt16(value))
        case 0x10000...0xffff_ffff: bytes.append(m | 26); appendBigEndian(UInt32(value))
        default: bytes.append(m | 27); appendBigEndian(value)
        }
    }

    @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ v: T) {
        withUnsafeBytes(of: v.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Appends `data` unchanged, copied from its contiguous storage (appending a `Data` as a sequence goes
    /// through its iterator).
    mutating func append(_ data: Data) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in bytes.append(contentsOf: raw) }
    }

    mutating func write(_ item: CBOR) {
        switch item {
        case .unsigned(let n): writeHead(0, n)
        case .negative(let n): writeHead(1, n)
        case .bytes(let d):
            writeHead(2, UInt64(d.count))
            append(d)
        case .text(let s):
            var s = s
            s.withUTF8 { utf8 in
                writeHead(3, UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        case .array(let a):
            writeHead(4, UInt64(a.count))
            // By index: the elements are borrowed, where `for e in a` would copy (retain) each one.
            for i in a.indices { write(a[i]) }
        case .map(let m): writeMap(m)
        case .tagged(let t, let c):
            if options.shortestFloats, let preferred = item.preferredBignum {
                // Preferred serialization of bignums (§3.4.3), part of core deterministic encoding.
                if case .tagged(let tag, let magnitude) = preferred {
                    writeHead(6, tag)
                    write(magnitude)
                } else {
                    write(preferred)
                }
                return
            }
            writeHead(6, t)
            write(c)
        case .simple(let v):
            if v < 24 { bytes.append(0xe0 | v) } else { bytes.append(0xf8); bytes.append(v) }
        case .bool(let b): bytes.append(b ? 0xf5 : 0xf4)
        case .null: bytes.append(0xf6)
        case .undefined: bytes.append(0xf7)
        case .half(let f):
            if options.shortestFloats { writeShortest(Double(f)) } else { writeHalf(f) }
        case .float(let f):
            if options.shortestFloats { writeShortest(Double(f)) } else { bytes.append(0xfa); appendBigEndian(f.bitPattern) }
        case .double(let d):
            if options.shortestFloats { writeShortest(d) } else { bytes.append(0xfb); appendBigEndian(d.bitPattern) }
        }
    }

    mutating func writeHalf(_ f: Float) {
        // A `.half` built by hand may not fit binary16; widen rather than lose it.
        if let h = Float16Bits.exact(f) {
            bytes.append(0xf9)
            appendBigEndian(h)
        } else if f.isNaN {
            bytes.append(0xf9)
            appendBigEndian(UInt16(0x7e00))
        } else {
            bytes.append(0xfa)
            appendBigEndian(f.bitPattern)
        }
    }

    /// Shortest exact width, NaN as f97e00 (§4.2.1, §4.2.2).
    mutating func writeShortest(_ d: Double) {
        if d.isNaN {
            bytes.append(contentsOf: [0xf9, 0x7e, 0x00])
            return
        }
        let f = Float(d)
        guard Double(f) == d else {
            bytes.append(0xfb)
            appendBigEndian(d.bitPattern)
            return
        }
        if let h = Float16Bits.exact(f) {
            bytes.append(0xf9)
            appendBigEndian(h)
        } else {
            bytes.append(0xfa)
            appendBigEndian(f.bitPattern)
        }
    }

    enum TextKeyOrder {
        case notAllText
        case inOrder
        case sorted([Int])
    }

    /// The order of a map whose keys are all text strings (what structures use), found without encoding the keys:
    /// by UTF-8 length, then bytes. That is the order of their encodings in both deterministic orders (§4.2.1,
    /// §4.2.3), since a text string's head grows with its length.
    static func textKeyOrder(_ entries: [CBORMap.Entry]) -> TextKeyOrder {
        var inOrder = true
        var previous: String?
        for entry in entries {
            guard case .text(let key) = entry.key else { return .notAllText }
            if inOrder, let previous, key.utf8Precedes(previous) { inOrder = false }
            previous = key
        }
        if inOrder { return .inOrder }
        var order = Array(entries.indices)
        order.sort { i, j in
            guard case .text(let a) = entries[i].key, case .text(let b) = entries[j].key else { return false }
            return a.utf8Precedes(b)
        }
        return .sorted(order)
    }

    mutating func writeMap(_ m: CBORMap) {
        writeHead(5, UInt64(m.count))
        if options.mapKeyOrder == .preserved || m.count < 2 {
            for i in m.entries.indices {
                write(m.entries[i].key)
                write(m.entries[i].value)
            }
            return
        }
        switch Self.textKeyOrder(m.entries) {
        case .inOrder:
            for i in m.entries.indices {
                write(m.entries[i].key)
                write(m.entries[i].value)
            }
            return
        case .sorted(let order):
            for i in order {
                write(m.entries[i].key)
                write(m.entries[i].value)
            }
            return
        case .notAllText:
            break
        }
        // Encode all keys into one scratch buffer, then order their byte ranges.
        var keyWriter = CBORWriter(options: options, capacity: m.count * 8)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(m.count)
        for e in m.entries {
            let start = keyWriter.bytes.count
            keyWriter.write(e.key)
            ranges.append(start..<keyWriter.bytes.count)
        }
        let keyBytes = keyWriter.bytes
        let lengthFirst = options.mapKeyOrder == .lengthFirst
        var order = Array(0..<m.count)
        keyBytes.withUnsafeBytes { raw in
            func less(_ i: Int, _ j: Int) -> Bool {
                let a = ranges[i], b = ranges[j]
                if lengthFirst && a.count != b.count { return a.count < b.count }
                let n = Swift.min(a.count, b.count)
                if n > 0, let base = raw.baseAddress {
                    let c = memcmp(base + a.lowerBound, base + b.lowerBound, n)
                    if c != 0 { return c < 0 }
                }
                return a.count < b.count
            }
            // Input that is already in order (the common case for deterministic data) skips the sort.
            if !zip(order, order.dropFirst()).allSatisfy({ less($0, $1) || !less($1, $0) }) {
                order.sort(by: less)
            }
        }
        for i in order {
            bytes.append(contentsOf: keyBytes[ranges[i]])
            write(m.entries[i].value)
        }
    }
}
