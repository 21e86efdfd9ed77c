/// How the app's sequence numbers are reserved, in blocks both ends agree on (vault-design.md, "Replay window";
/// issue 25): 1…100, 101…200, … of one session.
///
/// - The app saves the end of a block before it sends the block's first number, so after a restart it starts above
///   anything it may have sent.
/// - The vault saves the end of a block before it answers the first number it accepted in it, so a vault restored
///   from the database (a restart or another host's takeover) refuses every number the previous one may have
///   answered, reads included, with one write per block instead of one per message.
///
/// The two ends use the same blocks, so the vault's saved floor is never above the app's saved reservation: the
/// first number of the app's next block is always above it.
public enum SeqReservation {
    public static let blockSize: UInt64 = 100

    /// The last number of `seq`'s block (0 for 0, which no block holds); `UInt64.max` where the block would run past it.
    public static func blockEnd(of seq: UInt64) -> UInt64 {
        guard seq > 0 else { return 0 }
        let (end, overflow) = ((seq - 1) / blockSize + 1).multipliedReportingOverflow(by: blockSize)
        return overflow ? .max : end
    }

    /// The app skips to a new block when a command got no answer (the vault may have been restored above the
    /// current block), at most this many times until an answer arrives: a long outage must not carry its numbers
    /// past `ReplayWindow.maxAdvance` (4096) beyond the last one the vault accepted (4 × 100 leaves most of it).
    public static let maxSkipsWithoutAnswer = 4
}
