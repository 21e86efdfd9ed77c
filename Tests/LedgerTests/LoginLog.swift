import Synchronization
import VaultClient

/// What each device's logins did during a load: the state saved by its last acknowledged login (LedgerCrashTests,
/// LedgerScaleOutTests).
final class LoginLog: Sendable {
    private struct Entry {
        var state: VaultState
        var acknowledged = 0
    }

    struct Summary {
        var acknowledged = 0
        var unreadable = 0
    }

    private let entries: Mutex<[Entry]>
    private let unreadable = Mutex(0)

    init(states: [VaultState]) { entries = Mutex(states.map { Entry(state: $0) }) }

    func acknowledged(_ index: Int, state: VaultState?) {
        guard let state else {
            unreadable.withLock { $0 += 1 }
            return
        }
        entries.withLock {
            $0[index].state = state
            $0[index].acknowledged += 1
        }
    }

    var acknowledgedCount: Int { entries.withLock { $0.reduce(0) { $0 + $1.acknowledged } } }
    func lastAcknowledged(_ index: Int) -> VaultState? { entries.withLock { $0[index].state } }
    var summary: Summary { Summary(acknowledged: acknowledgedCount, unreadable: unreadable.withLock { $0 }) }
}
