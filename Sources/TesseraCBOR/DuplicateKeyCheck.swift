/// Finds a repeated map key while a map is decoded (RFC 8949 §5.6: keys must be unique).
///
/// Two keys are the same when `CBOR ==` says so: when their deterministic encodings are equal
/// (text by UTF-8 bytes, floats by value whatever their width, all NaNs alike). The first keys of a map
/// are compared pairwise; past `smallLimit` keys, an open-addressing table
/// hashed with the standard library's seeded `Hasher` keeps the check linear even for inputs
/// crafted to collide.
struct DuplicateKeyCheck {
    static let smallLimit = 16

    private var slots: [Int32] = []  // entry index + 1; 0 is empty
    private var hashes: [Int] = []
    private var used = 0

    /// Entries the map declares (0 for indefinite length), so the table is sized once.
    var expectedCount = 0

    /// True if `key` is new; `entries` are the map's entries read so far (key not yet appended).
    mutating func insert(_ key: CBOR, into entries: [CBORMap.Entry]) -> Bool {
        if slots.isEmpty {
            // Small maps (COSE headers, mdoc structures): compare pairwise, allocating nothing.
            if entries.count < Self.smallLimit {
                return !entries.contains { Self.same($0.key, key) }
            }
            grow(to: 2 * max(2 * entries.count, expectedCount), entries: entries)
        }
        let h = Self.seededHash(key)
        let mask = slots.count - 1
        var i = h & mask
        while slots[i] != 0 {
            if hashes[i] == h && Self.same(entries[Int(slots[i]) - 1].key, key) { return false }
            i = (i + 1) & mask
        }
        slots[i] = Int32(entries.count + 1)
        hashes[i] = h
        used += 1
        if used * 2 > slots.count { grow(to: slots.count * 2, entries: entries, plus: key) }
        return true
    }

    /// Rebuilds the table for `entries` (and `plus`, the key being added, which is not in them yet).
    private mutating func grow(to minimum: Int, entries: [CBORMap.Entry], plus: CBOR? = nil) {
        var capacity = 64
        while capacity < minimum { capacity <<= 1 }
        slots = Array(repeating: 0, count: capacity)
        hashes = Array(repeating: 0, count: capacity)
        used = 0
        let mask = capacity - 1
        func place(_ key: CBOR, _ index: Int) {
            let h = Self.seededHash(key)
            var i = h & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(index + 1)
            hashes[i] = h
            used += 1
        }
        for (index, entry) in entries.enumerated() { place(entry.key, index) }
        if let plus { place(plus, entries.count) }
    }

    /// `CBOR ==`, with a quick length test first for the common case of text keys.
    @inline(__always)
    static func same(_ a: CBOR, _ b: CBOR) -> Bool {
        if case .text(let x) = a, case .text(let y) = b {
            return x.utf8.count == y.utf8.count && x.utf8.elementsEqual(y.utf8)
        }
        return a == b
    }

    /// The standard library's per-process seeded hash, over the same data-model value `==` compares.
    static func seededHash(_ key: CBOR) -> Int { key.hashValue }
}
