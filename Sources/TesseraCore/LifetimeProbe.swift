import Synchronization

/// Weak references to the objects a single-use session owns (the session, its keys, its connection
/// handle), so a test — or a debug build — can assert that all of them are gone once the owner let go.
public final class LifetimeProbe: Sendable {
    private struct Refs: ~Copyable {
        var objects: [(name: String, ref: Weak)] = []
    }
    /// Only ever read under the lock, and only to test for nil: the object itself is never used, so it
    /// cannot be touched from another isolation.
    private struct Weak: @unchecked Sendable { weak var object: AnyObject? }
    private let refs = Mutex(Refs())

    public init() {}

    /// Starts watching `object` under `name`.
    public func watch(_ object: AnyObject, as name: String) {
        let weak = Weak(object: object)
        refs.withLock { $0.objects.append((name, weak)) }
    }

    /// Names of watched objects that are still alive.
    public var alive: [String] {
        refs.withLock { r in r.objects.filter { $0.ref.object != nil }.map(\.name) }
    }

    /// Names of every watched object.
    public var watched: [String] { refs.withLock { r in r.objects.map(\.name) } }
}
