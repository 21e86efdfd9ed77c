import NIOCore
import NIOPosix

/// Swift Concurrency's global executor on the event loops of the servers (NIO's singleton group, which Vapor uses),
/// for processes that run a server: an async route handler then runs on an event loop thread instead of hopping
/// between the event loops and Swift's own thread pool at every `await` (those thread switches were the largest
/// single item in the verifier service's profile).
public enum EventLoopExecutor {
    /// Installs it once per process (later calls return the first result); false where NIO cannot take over. Call
    /// it first thing in a server command, before any other task runs.
    @discardableResult
    public static func adopt() -> Bool { adopted }

    private static let adopted: Bool = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}
