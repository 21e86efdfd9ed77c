import NATSClient
import NIOConcurrencyHelpers

/// The server's state behind one lock. `NIOLock` rather than `Synchronization.Mutex`, which needs macOS 15 / iOS 18
/// while the package (and the app that links this module) supports macOS 14 / iOS 17.
final class LockedState: @unchecked Sendable {
    private let lock = NIOLock()
    private var state = InProcessState()

    func withLock<Result, Failure: Error>(_ body: (inout InProcessState) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

/// Everything the in-process server knows, kept under one lock: accounts by public nkey, each with its own
/// subject space.
struct InProcessState: Sendable {
    var accounts: [String: InProcessAccount] = [:]
    private var lastID: UInt64 = 0

    mutating func nextID() -> UInt64 {
        lastID += 1
        return lastID
    }
}

/// One account: its current JWT, its live connections and the subscriptions of its subject space (two accounts
/// never share a subject).
struct InProcessAccount: Sendable {
    var jwt: NATSJWT<AccountClaims>
    var connections: [UInt64: LiveConnection] = [:]
    var subscriptions: [UInt64: LiveSubscription] = [:]
    /// Subscription subject → subscription IDs.
    var routes = SubjectIndex<UInt64>()

    init(jwt: NATSJWT<AccountClaims>) { self.jwt = jwt }

    /// Removes a connection and its subscriptions; returns their streams to be finished (outside the lock).
    mutating func removeConnection(_ id: UInt64) -> [LiveSubscription] {
        guard let connection = connections.removeValue(forKey: id) else { return [] }
        return connection.subscriptions.compactMap { removeSubscription($0) }
    }

    mutating func removeSubscription(_ id: UInt64) -> LiveSubscription? {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return nil }
        routes.remove(subscription.subject, id)
        connections[subscription.connection]?.subscriptions.remove(id)
        return subscription
    }
}

/// An authenticated connection: who it is (for revocation) and its subscriptions (to end them on close).
struct LiveConnection: Sendable {
    let user: String
    let issuedAt: Int64
    /// The account signing key that issued the user JWT, if not the account key itself.
    let signingKey: String?
    var subscriptions: Set<UInt64> = []
}

struct LiveSubscription: Sendable {
    let connection: UInt64
    let subject: String
    let queue: String?
    let continuation: AsyncThrowingStream<NATSMessage, any Error>.Continuation
    /// The subscriber's subscribe permission: its deny list filters what a wildcard subscription receives.
    let permission: SubjectPermission
}
