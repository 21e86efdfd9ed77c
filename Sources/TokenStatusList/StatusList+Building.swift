extension StatusList {
    /// A list of at least `count` statuses, all VALID except those at `indices`, which hold `status` (INVALID by
    /// default): how an issuer rebuilds its list from the entries it has revoked. One allocation, one pass over
    /// `indices`; repeated indices are harmless.
    public init(
        bits: Int, count: Int, setting indices: some Sequence<Int>, to status: UInt8 = StatusList.invalid,
        aggregationURI: String? = nil
    ) throws(StatusListError) {
        self = try StatusList(bits: bits, count: count, aggregationURI: aggregationURI)
        try checkFits(status)
        let total = self.count
        if bits == 1 {
            // One bit per entry: no shift table, no clearing (every bit starts at VALID).
            guard status == 1 else {
                for index in indices where index < 0 || index >= total { throw .indexOutOfRange(index: index, count: total) }
                return
            }
            for index in indices {
                guard index >= 0, index < total else { throw .indexOutOfRange(index: index, count: total) }
                bytes[index >> 3] |= UInt8(truncatingIfNeeded: 1 << (index & 7))
            }
            return
        }
        for index in indices { try setStatus(status, at: index) }
    }

    /// A list of at least `count` statuses, VALID except the given `(index, status)` pairs; a later pair for the same
    /// index wins.
    public init(
        bits: Int, count: Int, statuses: some Sequence<(index: Int, status: UInt8)>, aggregationURI: String? = nil
    ) throws(StatusListError) {
        self = try StatusList(bits: bits, count: count, aggregationURI: aggregationURI)
        for entry in statuses { try setStatus(entry.status, at: entry.index) }
    }

    /// Every entry that is not VALID, in index order, with its status: what an issuer would store, and what two
    /// readers of the same list must agree on. Whole zero bytes are skipped.
    public var nonValidStatuses: [(index: Int, status: UInt8)] {
        var found: [(index: Int, status: UInt8)] = []
        let perByte = 8 / bits
        for (position, byte) in bytes.enumerated() where byte != 0 {
            for slot in 0..<perByte {
                let value = (byte >> (slot * bits)) & mask
                if value != 0 { found.append((position * perByte + slot, value)) }
            }
        }
        return found
    }
}
