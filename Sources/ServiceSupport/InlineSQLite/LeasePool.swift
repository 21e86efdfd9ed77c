import NIOConcurrencyHelpers

/// A fixed set of resources lent to one task at a time. A free one is taken at once, with no suspension and no
/// thread hand-off; otherwise the task waits, without blocking a thread, until one is returned (first come,
/// first served).
final class LeasePool<Resource: Sendable>: Sendable {
    private struct State {
        var free: [Resource]
        var waiters: [CheckedContinuation<Resource, Never>] = []
    }

    private let state: NIOLockedValueBox<State>

    init(_ resources: [Resource]) {
        state = NIOLockedValueBox(State(free: resources))
    }

    func lease() async -> Resource {
        if let resource = state.withLockedValue({ $0.free.popLast() }) { return resource }
        return await withCheckedContinuation { continuation in
            let taken: Resource? = state.withLockedValue { state in
                if let resource = state.free.popLast() { return resource }
                state.waiters.append(continuation)
                return nil
            }
            if let taken { continuation.resume(returning: taken) }
        }
    }

    func release(_ resource: Resource) {
        let waiter: CheckedContinuation<Resource, Never>? = state.withLockedValue { state in
            guard !state.waiters.isEmpty else {
                state.free.append(resource)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: resource)
    }
}
