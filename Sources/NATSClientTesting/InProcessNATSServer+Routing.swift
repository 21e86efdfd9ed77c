import Foundation
import NATSClient

/// Subscriptions and message routing inside one account. Messages are handed to the subscribers' streams under the
/// lock, so every subscriber sees one publisher's messages in the order they were published; streams are finished
/// outside it.
extension InProcessNATSServer {
    /// Routes `message` from connection `id` of `account` to every matching subscription of that account, and to
    /// one member of each matching queue group (drawn from `random`).
    func route(_ message: NATSMessage, from id: UInt64, account: String, permission: SubjectPermission) throws(NATSError) {
        try state.withLock { state throws(NATSError) in
            guard let entry = state.accounts[account], entry.connections[id] != nil else { throw .connectionClosed }
            // nats-server answers `Permissions Violation for Publish to "…"` and keeps the connection.
            guard permission.permits(message.subject) else {
                throw .permissionViolation(operation: "Publish", subject: message.subject)
            }
            var groups: [String: [LiveSubscription]] = [:]
            for subscriptionID in entry.routes.matches(message.subject) {
                guard let subscription = entry.subscriptions[subscriptionID],
                    subscription.permission.delivers(message.subject)
                else { continue }
                if let queue = subscription.queue {
                    groups[queue, default: []].append(subscription)
                } else {
                    subscription.continuation.yield(message)
                }
            }
            for members in groups.values { members[pick(members.count)].continuation.yield(message) }
        }
    }

    /// A uniformly drawn index below `count` (> 0).
    private func pick(_ count: Int) -> Int {
        let value = random.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(value % UInt64(count))
    }

    /// Registers a subscription of connection `id`; a subject its permission does not cover gives a subscription
    /// that ends at once with `permissionViolation(operation: "Subscription", …)`, as nats-server refuses the SUB
    /// and keeps the connection.
    func subscribe(
        to subject: String, queue: String?, from id: UInt64, account: String, permission: SubjectPermission
    ) throws(NATSError) -> Subscription {
        let (stream, continuation) = AsyncThrowingStream<NATSMessage, any Error>.makeStream()
        let subscriptionID = try state.withLock { state throws(NATSError) -> UInt64? in
            guard state.accounts[account]?.connections[id] != nil else { throw .connectionClosed }
            guard permission.permits(subject) else { return nil }
            let subscriptionID = state.nextID()
            state.accounts[account]?.subscriptions[subscriptionID] = LiveSubscription(
                connection: id, subject: subject, queue: queue, continuation: continuation, permission: permission)
            state.accounts[account]?.routes.insert(subject, subscriptionID)
            state.accounts[account]?.connections[id]?.subscriptions.insert(subscriptionID)
            return subscriptionID
        }
        guard let subscriptionID else {
            continuation.finish(throwing: NATSError.permissionViolation(operation: "Subscription", subject: subject))
            return Subscription(subject: subject, queue: queue, stream: stream) {}
        }
        // A reader that stops iterating (its task cancelled) unsubscribes, like `NATSClient`.
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.unsubscribe(subscriptionID, account: account) }
        }
        return Subscription(subject: subject, queue: queue, stream: stream) { [weak self] in
            self?.unsubscribe(subscriptionID, account: account)
        }
    }

    func unsubscribe(_ subscriptionID: UInt64, account: String) {
        let removed = state.withLock { $0.accounts[account]?.removeSubscription(subscriptionID) }
        removed?.continuation.finish()
    }

    /// Ends connection `id`: its subscriptions finish (normally, or throwing `reason`).
    func close(_ id: UInt64, account: String, reason: NATSError? = nil) {
        let removed = state.withLock { $0.accounts[account]?.removeConnection(id) ?? [] }
        for subscription in removed {
            if let reason { subscription.continuation.finish(throwing: reason) } else { subscription.continuation.finish() }
        }
    }

    func isOpen(_ id: UInt64, account: String) -> Bool {
        state.withLock { $0.accounts[account]?.connections[id] != nil }
    }
}
