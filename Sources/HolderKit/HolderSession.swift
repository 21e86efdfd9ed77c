import Foundation
import MDoc
import ProximitySession
import ProximityTransport
import TesseraCore

/// One presentation, used once (ARCHITECTURE.md decision 3). A passive state machine confined to its
/// orchestrator: it checks transitions against `HolderSessionState.allowedTransitions`, owns the ephemeral
/// keys and the `ConnectionHandle`, and releases both in `deinit`. Its critical properties are sealed: set
/// once, through a gated mutator that checks the state; a second write invalidates the session.
public final class HolderSession: ManagedSession {
    /// Distinguishes this session from its successors in the orchestrator's background tasks.
    public let id = UUID()
    /// The card the user chose to present.
    public let credential: StoredCredential
    /// The engagement shown to the reader; sealed, set by ``setEngagement(_:eDeviceKey:)`` in `notStarted` only.
    public private(set) var engagement: HolderEngagement?
    /// The reader's request; sealed, set by ``setRequest(_:)`` in `connecting` only.
    public private(set) var request: ReceivedRequest?
    private let core = SessionCore<HolderSessionState, HolderSessionKeys>(.notStarted)

    /// The current state; it changes only through ``transition(to:)`` and ``invalidate(_:)``.
    public var state: HolderSessionState { core.state }
    /// The session's ephemeral secrets; nil before the engagement and after release.
    public var keys: HolderSessionKeys? { core.keys }
    /// The BLE connection the session owns; nil before advertising and after release (closing it ends the link).
    public var connection: ConnectionHandle? { core.connection }

    /// A new session in `notStarted` for presenting `credential`. ``HolderOrchestrator`` makes one per presentation.
    public init(credential: StoredCredential) {
        self.credential = credential
    }

    /// Moves to `next` if the table allows it; otherwise the session fails with `invalidTransition`.
    public func transition(to next: HolderSessionState) throws(HolderSessionError) {
        try core.transition(to: next)
    }

    /// Sets the engagement and seals the ephemeral key. Only in `notStarted`.
    public func setEngagement(_ engagement: HolderEngagement, eDeviceKey: EphemeralPrivateKey) throws(HolderSessionError) {
        try core.setKeys(HolderSessionKeys(eDeviceKey: eDeviceKey), allowedIn: .notStarted)
        self.engagement = engagement
    }

    /// Hands the connection handle to the session, which owns it from now on. Only in `presentingEngagement`.
    public func setConnection(_ handle: ConnectionHandle) throws(HolderSessionError) {
        try core.setConnection(handle, allowedIn: .presentingEngagement)
    }

    /// Stores the session encryption derived from the reader's key. Only in `connecting`, once.
    public func setSessionEncryption(_ encryption: SessionEncryption, sessionTranscript: SessionTranscript) throws(HolderSessionError) {
        try core.gate("sessionEncryption", sealed: keys?.encryption != nil, allowedIn: .connecting)
        guard let keys else {
            let error = HolderSessionError.mutatorNotAllowed(property: "sessionEncryption", in: state.phase)
            invalidate(error)
            throw error
        }
        keys.establish(encryption: encryption, sessionTranscript: sessionTranscript)
    }

    /// Stores the decrypted request. Only in `connecting`.
    public func setRequest(_ request: ReceivedRequest) throws(HolderSessionError) {
        try core.gate("request", sealed: self.request != nil, allowedIn: .connecting)
        self.request = request
    }

    /// Fails the session with `error` (unless it already ended) and releases its resources.
    public func invalidate(_ error: HolderSessionError) { core.invalidate(error) }

    /// Wipes the keys and closes the connection handle (which stops advertising or disconnects).
    func release() { core.release() }

    /// Watches the session, its keys and its handle (for clean-up assertions).
    public func watch(with probe: LifetimeProbe) { core.watch(self, with: probe) }
}
