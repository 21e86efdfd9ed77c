import Foundation
import Synchronization

/// Suspended tasks waiting for a value, kept inside their owner's `Mutex` state so that "check, else wait" is one
/// atomic step. Each waiter gets an id first (`reserve`) so that cancellation and time limits can find it whether
/// or not it has suspended yet.
package struct Waiters<Value: Sendable>: Sendable {
    package typealias Continuation = CheckedContinuation<Result<Value, TransportError>, Never>

    private enum Slot: Sendable {
        /// Has an id, not suspended yet.
        case reserved
        case waiting(Continuation)
        /// Served (or cancelled) before it suspended: `park` resumes it at once.
        case done(Result<Value, TransportError>)
    }

    private var nextID: UInt64 = 0
    private var slots: [UInt64: Slot] = [:]

    package init() {}

    package mutating func reserve() -> UInt64 {
        nextID &+= 1
        slots[nextID] = .reserved
        return nextID
    }

    /// Parks the continuation, or resumes it at once if the waiter was cancelled or timed out before suspending.
    package mutating func park(_ id: UInt64, _ continuation: Continuation) {
        switch slots[id] {
        case .reserved:
            slots[id] = .waiting(continuation)
        case .done(let result):
            slots[id] = nil
            continuation.resume(returning: result)
        case .waiting, nil:
            continuation.resume(returning: .failure(.closed))
        }
    }

    /// Ends one waiter with `error` (cancellation, time limit); a waiter already served is left alone.
    package mutating func abandon(_ id: UInt64, with error: TransportError) {
        switch slots[id] {
        case .reserved:
            slots[id] = .done(.failure(error))
        case .waiting(let continuation):
            slots[id] = nil
            continuation.resume(returning: .failure(error))
        case .done, nil:
            break
        }
    }

    /// Serves the oldest waiter (suspended or about to); false if there is none.
    package mutating func resumeFirst(with result: Result<Value, TransportError>) -> Bool {
        let first = slots.lazy.compactMap { id, slot -> UInt64? in
            switch slot {
            case .reserved, .waiting: return id
            case .done: return nil
            }
        }.min()
        guard let id = first else { return false }
        switch slots[id] {
        case .waiting(let continuation):
            slots[id] = nil
            continuation.resume(returning: result)
        case .reserved:
            slots[id] = .done(result)
        case .done, nil:
            return false
        }
        return true
    }

    /// Forgets a reserved id that will not suspend after all (a suspended waiter is left alone).
    package mutating func discard(_ id: UInt64) {
        switch slots[id] {
        case .reserved, .done: slots[id] = nil
        case .waiting, nil: break
        }
    }

    /// Serves every waiter, including those that have not suspended yet.
    package mutating func resumeAll(with result: Result<Value, TransportError>) {
        for (id, slot) in slots {
            switch slot {
            case .waiting(let continuation):
                continuation.resume(returning: result)
                slots[id] = nil
            case .reserved:
                slots[id] = .done(result)
            case .done:
                break
            }
        }
    }
}

/// Suspends until the waiter `id` is served; task cancellation ends it with `.closed`, `timeout` with `.timedOut`.
/// `park` stores the continuation under the owner's lock; `abandon` removes it under the same lock.
package func suspend<Value: Sendable>(
    id: UInt64,
    timeout: Duration?,
    park: (UInt64, Waiters<Value>.Continuation) -> Void,
    abandon: @escaping @Sendable (UInt64, TransportError) -> Void
) async -> Result<Value, TransportError> {
    var timer: Task<Void, Never>?
    if let timeout {
        timer = Task {
            do {
                try await Task.sleep(for: timeout)
                abandon(id, .timedOut)
            } catch {}
        }
    }
    defer { timer?.cancel() }
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in park(id, continuation) }
    } onCancel: {
        abandon(id, .closed)
    }
}
