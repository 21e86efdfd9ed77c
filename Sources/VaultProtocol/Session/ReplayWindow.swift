/// Why an incoming envelope was dropped without an answer (vault-design.md, "Replay window").
public enum VaultDropReason: String, Sendable, CaseIterable {
    /// Not an envelope, or its plaintext is not an event.
    case malformed
    /// No live session (or connection) has this id.
    case unknownSession
    /// The tag does not verify.
    case badTag
    /// This seq was accepted before.
    case duplicate
    /// seq ≤ highest − 64: too old to tell whether it was seen.
    case tooOld
    /// seq > highest + 4096: too far ahead (a sender does not skip that many).
    case outOfWindow
    /// Genuine, but the vault could not save its receive reservation (`SeqReservation`) before answering: an answer
    /// a restored vault could repeat is never given. The app sends the command again under a new seq.
    case unreserved
}

/// The replay window of one (session, direction), in the style of RFC 4303 §3.4.3: the highest accepted seq and a
/// 64-bit bitmap of the 64 seqs ending at it (bit i = highest − i). Out-of-order delivery within the window is
/// accepted once each.
public struct ReplayWindow: Sendable, Equatable {
    public static let width: UInt64 = 64
    /// How far ahead of `highest` a seq may jump.
    public static let maxAdvance: UInt64 = 4096

    public private(set) var highest: UInt64
    private var seen: UInt64

    /// Every seq ≤ `floor` counts as seen (a session restored from storage resumes after what it had accepted).
    public init(floor: UInt64 = 0) {
        highest = floor
        seen = ~0
    }

    /// nil when `seq` is acceptable; does not change the window.
    public func check(_ seq: UInt64) -> VaultDropReason? {
        if seq > highest {
            return seq - highest > Self.maxAdvance ? .outOfWindow : nil
        }
        let age = highest - seq
        if age >= Self.width { return .tooOld }
        return seen & (1 << age) != 0 ? .duplicate : nil
    }

    /// Marks `seq` as seen. Call only after the tag verified (a forged envelope must not move the window); a seq
    /// that `check` refuses is ignored.
    public mutating func accept(_ seq: UInt64) {
        guard check(seq) == nil else { return }
        if seq > highest {
            let shift = seq - highest
            seen = shift >= Self.width ? 0 : seen << shift
            seen |= 1
            highest = seq
        } else {
            seen |= 1 << (highest - seq)
        }
    }
}

/// Dropped envelopes counted by reason (drops are never answered, so this is how they are seen).
public struct VaultDropCounters: Sendable, Equatable {
    public private(set) var counts: [VaultDropReason: Int] = [:]

    public init() {}

    public mutating func record(_ reason: VaultDropReason) { counts[reason, default: 0] += 1 }

    public subscript(reason: VaultDropReason) -> Int { counts[reason] ?? 0 }

    public var total: Int { counts.values.reduce(0, +) }
}
