import Foundation
import Synchronization
import TesseraCore

/// Fixed one-minute windows per key ("ip:…", "user:…"). In memory, so each instance of a scaled-out ledger counts
/// its own requests: the limit is per instance, a deliberate simplification (the lockout, which matters for
/// guessing, is in the database and shared).
final class RateLimiter: Sendable {
    private struct Window { var start: Date; var count: Int }
    private let windows = Mutex<[String: Window]>([:])
    private let clock: any TesseraClock

    init(clock: any TesseraClock) { self.clock = clock }

    /// Counts one request; false when the key is over `limit` in the current minute.
    func allow(_ key: String, limit: Int) -> Bool {
        let now = clock.now()
        return windows.withLock { windows in
            if windows.count > 100_000 { windows = windows.filter { now.timeIntervalSince($0.value.start) < 60 } }
            var window = windows[key] ?? Window(start: now, count: 0)
            if now.timeIntervalSince(window.start) >= 60 { window = Window(start: now, count: 0) }
            window.count += 1
            windows[key] = window
            return window.count <= limit
        }
    }
}
