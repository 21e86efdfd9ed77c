import ProximityTransport
import TesseraCore

/// Secrets a session holds and wipes when it is released (swift-crypto zeroises key material when freed).
public protocol SessionSecrets: AnyObject {
    func wipe()
}

/// The part of a single-use proximity session that the holder's and the reader's share (ARCHITECTURE.md decision
/// 3): the state checked against the transition table, sealed properties set once through gated mutators, and the
/// ephemeral keys and `ConnectionHandle` released (keys wiped, handle closed) at a terminal state, on invalidation
/// and in `deinit`. Confined to the session's orchestrator, as the session is.
public final class SessionCore<State: ProximitySessionState, Keys: SessionSecrets> {
    public private(set) var state: State
    public private(set) var keys: Keys?
    public private(set) var connection: ConnectionHandle?

    public init(_ initial: State) { state = initial }

    deinit { release() }

    /// Moves to `next` if the table allows it; otherwise the session fails with `invalidTransition`.
    public func transition(to next: State) throws(State.Failure) {
        guard state.canTransition(to: next) else {
            let error = State.Failure.invalidTransition(from: state.phase, to: next.phase)
            invalidate(error)
            throw error
        }
        state = next
        if next.isTerminal { release() }
    }

    /// Checks a gated mutator: `property` not yet written (`sealed` false) and the session in `phase`; otherwise
    /// the session is invalidated and the failure thrown.
    public func gate(_ property: String, sealed: Bool, allowedIn phase: State.Phase) throws(State.Failure) {
        if sealed {
            let error = State.Failure.sealedPropertyRewritten(property: property)
            invalidate(error)
            throw error
        }
        guard state.phase == phase else {
            let error = State.Failure.mutatorNotAllowed(property: property, in: state.phase)
            invalidate(error)
            throw error
        }
    }

    /// Seals the session's keys. Only in `phase`, once.
    public func setKeys(_ keys: Keys, allowedIn phase: State.Phase) throws(State.Failure) {
        try gate("engagement", sealed: self.keys != nil, allowedIn: phase)
        self.keys = keys
    }

    /// Hands the connection handle to the session, which owns it from now on. Only in `phase`, once; a refused
    /// handle is closed at once (nobody else owns it).
    public func setConnection(_ handle: ConnectionHandle, allowedIn phase: State.Phase) throws(State.Failure) {
        do {
            try gate("connection", sealed: connection != nil, allowedIn: phase)
        } catch {
            handle.close()
            throw error
        }
        connection = handle
    }

    /// Fails the session with `error` (unless it already ended) and releases its resources.
    public func invalidate(_ error: State.Failure) {
        if !state.isTerminal { state = .failed(error) }
        release()
    }

    /// Wipes the keys and closes the connection handle (which stops advertising or disconnects).
    public func release() {
        keys?.wipe()
        keys = nil
        connection?.close()
        connection = nil
    }

    /// Watches `session`, its keys and its handle (for clean-up assertions).
    public func watch(_ session: AnyObject, with probe: LifetimeProbe) {
        probe.watch(session, as: "session")
        if let keys { probe.watch(keys, as: "keys") }
        if let connection { probe.watch(connection, as: "connectionHandle") }
    }
}
