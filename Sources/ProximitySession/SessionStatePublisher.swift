/// The stream of states an orchestrator publishes for its UI (ARCHITECTURE.md decision 4), and the last phase it
/// published, so that a session's final state is published exactly once.
public struct SessionStatePublisher<State: ProximitySessionState>: Sendable {
    public let states: AsyncStream<State>
    private let continuation: AsyncStream<State>.Continuation
    public private(set) var lastPublished: State.Phase?

    public init() {
        (states, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    public mutating func publish(_ state: State) {
        continuation.yield(state)
        lastPublished = state.phase
    }

    /// Publishes `state` unless its phase was the last one published.
    public mutating func publishIfNew(_ state: State) {
        if lastPublished != state.phase { publish(state) }
    }

    public func finish() { continuation.finish() }
}

/// A session an orchestrator drives through its states (`HolderSession`, `VerifierSession`).
public protocol ManagedSession: AnyObject {
    associatedtype State: ProximitySessionState
    var state: State { get }
    func transition(to next: State) throws(State.Failure)
}

extension SessionStatePublisher {
    /// Moves `session` to `next` and publishes its state either way (a refused transition has failed the session,
    /// and the UI sees that too). True when the transition was made.
    @discardableResult
    public mutating func move<Session: ManagedSession>(_ session: Session, to next: State) -> Bool where Session.State == State {
        do {
            try session.transition(to: next)
            publish(session.state)
            return true
        } catch {
            publish(session.state)
            return false
        }
    }
}
