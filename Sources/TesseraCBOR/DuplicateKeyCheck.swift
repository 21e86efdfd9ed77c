/// Finds a repeated map key while a map is decoded (RFC 8949 §5.6: keys must be unique).
///
/// Two keys are the same when `CBOR ==` says so: when their deterministic encodings are equal
/// (text by UTF-8 bytes, floats by value whatever their width, all NaNs alike). The first keys of a map
/// are compared through a cheap fingerprint; past `smallLimit` keys, an open-addressing table
/// hashed with the standard library's seeded `Hasher` keeps the check linear even for inputs
/// crafted to collide.
struct DuplicateKeyCheck {
    static let smallLimit = 16

    private var fingerprints: [UInt64] = []
    private var slots: [Int32] = []  // entry index + 1; 0 is empty
    private var hashes: [Int] = []
    private var used = 0

    /// Entries the map declares (0 for indefinite length), so the table is sized once.
    var expectedCount = 0

    /// True if `key` is new; `entries` are the map's entries read so far (key not yet appended).
    mutating func insert(_ key: CBOR, into entries: [CBORMap.Entry]) -> Bool {
        if slots.isEmpty {
            if entries.count < Self.smallLimit {
                let fp = Self.fingerprint(key)
                for (j, f) in fingerprints.enumerated() where f == fp && Self.same(entries[j].key, key) {
                    return false
                }
                fingerprints.append(fp)
                return true
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

    static func same(_ a: CBOR, _ b: CBOR) -> Bool { a == b }

    /// FNV-1a over the key's major type and content; used only for the first few keys of a map.
    static func fingerprint(_ key: CBOR) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func mix(_ byte: UInt8) { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        switch key {
        case .unsigned(let n): return n &* 0x9E37_79B9_7F4A_7C15
        case .negative(let n): return ~(n &* 0x9E37_79B9_7F4A_7C15)
        case .text(let s):
            mix(3)
            for b in s.utf8 { mix(b) }
        case .bytes(let d):
            mix(2)
            for b in d { mix(b) }
        default: return UInt64(bitPattern: Int64(key.hashValue))
        }
        return h
    }

    /// The standard library's per-process seeded hash, over the same data-model value `==` compares.
    static func seededHash(_ key: CBOR) -> Int { key.hashValue }
}
