import Foundation
import Synchronization

/// When this instance last deleted old transactions: at most once per `interval` of the injected clock, rather than
/// on every new transaction (the DELETE was one more statement, and a scan before the index, per transaction).
final class PurgeSchedule: Sendable {
    let interval: TimeInterval
    private let last = Mutex<Date?>(nil)

    init(interval: TimeInterval = 60) {
        self.interval = interval
    }

    /// True for the first caller once `interval` has passed since the last purge (or the clock went back), and
    /// records `now` for it.
    func claim(at now: Date) -> Bool {
        last.withLock { last in
            if let previous = last, now >= previous, now.timeIntervalSince(previous) < interval { return false }
            last = now
            return true
        }
    }
}
