import Foundation

/// The entries of a CBOR map in their received (or built) order.
///
/// Order is kept so that a structure can be inspected exactly as it arrived;
/// equality and hashing ignore order, as maps in the CBOR data model are
/// unordered (RFC 8949 §5.6). Lookup is linear for small maps, which is what
/// COSE headers and mdoc structures are; large maps are looked up the same way
/// but are rarely searched by key.
public struct CBORMap: Hashable, Sendable, Sequence {
    public struct Entry: Hashable, Sendable {
        public var key: CBOR
        public var value: CBOR
        public init(key: CBOR, value: CBOR) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var entries: [Entry]

    public init(_ entries: [Entry] = []) { self.entries = entries }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

    /// The value stored under `key`, if any.
    public subscript(key: CBOR) -> CBOR? {
        get { entries.first(where: { $0.key == key })?.value }
        set {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                if let newValue { entries[i].value = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append(Entry(key: key, value: newValue))
            }
        }
    }

    /// The value under the text key `key`. Text keys compare by their UTF-8 bytes (RFC 8949 §2), as
    /// `CBOR` equality does; this skips building a `CBOR` key and the general comparison, since it is what
    /// every structure decoder looks fields up with.
    public subscript(key: String) -> CBOR? {
        for entry in entries {
            if case .text(let k) = entry.key, k.hasSameUTF8(as: key) { return entry.value }
        }
        return nil
    }
    public subscript(key: Int) -> CBOR? { self[.int(key)] }

    public var keys: [CBOR] { entries.map(\.key) }

    public mutating func append(key: CBOR, value: CBOR) {
        entries.append(Entry(key: key, value: value))
    }

    public static func == (lhs: CBORMap, rhs: CBORMap) -> Bool {
        guard lhs.entries.count == rhs.entries.count else { return false }
        if zip(lhs.entries, rhs.entries).allSatisfy({ $0.key == $1.key && $0.value == $1.value }) { return true }
        // Same entries in another order? Maps are unordered in the data model, and two maps are the
        // same exactly when their deterministic encodings (keys sorted, §4.2.1) are. Comparing the
        // encodings keeps this linear per level; looking each key up by equality instead would be
        // exponential for maps nested as keys of maps (found by the fuzzer).
        return CBOR.map(lhs).encodedBytes() == CBOR.map(rhs).encodedBytes()
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-entry hashes commutatively.
        var acc = 0
        for e in entries {
            var h = Hasher()
            h.combine(e)
            acc = acc &+ h.finalize()
        }
        hasher.combine(entries.count)
        hasher.combine(acc)
    }
}

extension String {
    /// Whether both strings have the same UTF-8 bytes (not Unicode canonical equivalence, which `==` uses).
    @inline(__always)
    func hasSameUTF8(as other: String) -> Bool {
        let a = utf8
        let b = other.utf8
        guard a.count == b.count else { return false }
        let compared = a.withContiguousStorageIfAvailable { pa in
            b.withContiguousStorageIfAvailable { pb -> Bool in
                guard let x = pa.baseAddress, let y = pb.baseAddress else { return true }  // both empty
                return memcmp(x, y, pa.count) == 0
            }
        }
        if let compared, let result = compared { return result }
        return a.elementsEqual(b)
    }

    /// Shorter UTF-8 first, then bytewise: the order of the strings' CBOR encodings.
    func utf8Precedes(_ other: String) -> Bool {
        let a = utf8
        let b = other.utf8
        if a.count != b.count { return a.count < b.count }
        let compared = a.withContiguousStorageIfAvailable { pa in
            b.withContiguousStorageIfAvailable { pb -> Bool in
                guard let x = pa.baseAddress, let y = pb.baseAddress else { return false }  // both empty
                return memcmp(x, y, pa.count) < 0
            }
        }
        if let compared, let result = compared { return result }
        return a.lexicographicallyPrecedes(b)
    }
}
