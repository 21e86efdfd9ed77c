/// A single-use proximity session's states as a table-driven state machine (ARCHITECTURE.md decision 3): what
/// `HolderSessionState` and `VerifierSessionState` have in common, so that one `SessionCore` checks both.
public protocol ProximitySessionState: Sendable {
    /// The state without its payload: the key of the transition table.
    associatedtype Phase: ProximitySessionPhase
    /// Why a session of this kind failed.
    associatedtype Failure: ProximitySessionFailure where Failure.Phase == Phase

    var phase: Phase { get }
    /// Every allowed transition; a terminal phase allows none.
    static var allowedTransitions: [Phase: Set<Phase>] { get }
    /// The failed state carrying `error`.
    static func failed(_ error: Failure) -> Self
}

extension ProximitySessionState {
    /// `success`, `failed` and `cancelled` are final.
    public var isTerminal: Bool { phase.isTerminal }

    public func canTransition(to next: Self) -> Bool {
        Self.allowedTransitions[phase]?.contains(next.phase) ?? false
    }
}

/// A phase of a session's state machine.
public protocol ProximitySessionPhase: Hashable, Sendable {
    /// True for the final phases (success, failed, cancelled).
    var isTerminal: Bool { get }
}

/// The failures every session kind reports in the same way: a transition outside the table, a gated mutator
/// called in the wrong phase, a sealed property written twice.
public protocol ProximitySessionFailure: Error, Sendable {
    associatedtype Phase: ProximitySessionPhase

    /// The transition is not in the table, or the state is terminal.
    static func invalidTransition(from: Phase, to: Phase) -> Self
    /// A gated mutator was called outside the one phase that allows it.
    static func mutatorNotAllowed(property: String, in: Phase) -> Self
    /// A sealed property was written twice; the session is invalidated, a retry needs a new session.
    static func sealedPropertyRewritten(property: String) -> Self
}
