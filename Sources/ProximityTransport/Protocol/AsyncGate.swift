import Synchronization

/// A FIFO async lock: one message's chunks go out before the next message's (§8.3.3.1.1.6 has no interleaving).
final class AsyncGate: Sendable {
    private struct State: Sendable {
        var locked = false
        var waiters = Waiters<Void>()
    }

    private let state = Mutex(State())

    /// Waits for the gate; task cancellation while waiting throws `.closed`.
    func acquire() async throws(TransportError) {
        let id: UInt64? = state.withLock { state in
            if !state.locked {
                state.locked = true
                return nil
            }
            return state.waiters.reserve()
        }
        guard let id else { return }
        let result = await suspend(
            id: id, timeout: nil,
            park: { id, continuation in state.withLock { $0.waiters.park(id, continuation) } },
            abandon: { [weak self] id, error in self?.state.withLock { $0.waiters.abandon(id, with: error) } })
        try result.get()
    }

    /// Hands the gate to the next waiter, or opens it.
    func release() {
        state.withLock { state in
            if !state.waiters.resumeFirst(with: .success(())) { state.locked = false }
        }
    }
}
