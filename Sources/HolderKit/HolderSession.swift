import Foundation
import MDoc
import ProximityTransport
import TesseraCore

/// One presentation, used once (ARCHITECTURE.md decision 3). A passive state machine confined to its
/// orchestrator: it checks transitions against `HolderSessionState.allowedTransitions`, owns the ephemeral
/// keys and the `ConnectionHandle`, and releases both in `deinit`. Its critical properties are sealed: set
/// once, through a gated mutator that checks the state; a second write invalidates the session.
public final class HolderSession {
    public let id = UUID()
    /// The card the user chose to present.
    public let credential: StoredCredential
    public private(set) var state: HolderSessionState = .notStarted
    public private(set) var engagement: HolderEngagement?
    public private(set) var keys: HolderSessionKeys?
    public private(set) var connection: ConnectionHandle?
    public private(set) var request: ReceivedRequest?

    public init(credential: StoredCredential) {
        self.credential = credential
    }

    deinit { release() }

    /// Moves to `next` if the table allows it; otherwise the session fails with `invalidTransition`.
    public func transition(to next: HolderSessionState) throws(SessionError) {
        guard state.canTransition(to: next) else {
            let error = SessionError.invalidTransition(from: state.phase, to: next.phase)
            invalidate(error)
            throw error
        }
        state = next
        if next.isTerminal { release() }
    }

    /// Sets the engagement and seals the ephemeral key. Only in `notStarted`.
    public func setEngagement(_ engagement: HolderEngagement, eDeviceKey: EphemeralPrivateKey) throws(SessionError) {
        try gate("engagement", sealed: self.engagement != nil, allowedIn: .notStarted)
        self.engagement = engagement
        self.keys = HolderSessionKeys(eDeviceKey: eDeviceKey)
    }

    /// Hands the connection handle to the session, which owns it from now on. Only in `presentingEngagement`.
    public func setConnection(_ handle: ConnectionHandle) throws(SessionError) {
        do {
            try gate("connection", sealed: connection != nil, allowedIn: .presentingEngagement)
        } catch {
            handle.close()
            throw error
        }
        connection = handle
    }

    /// Stores the session encryption derived from the reader's key. Only in `connecting`, once.
    public func setSessionEncryption(_ encryption: SessionEncryption, sessionTranscript: SessionTranscript) throws(SessionError) {
        try gate("sessionEncryption", sealed: keys?.encryption != nil, allowedIn: .connecting)
        guard let keys else {
            let error = SessionError.mutatorNotAllowed(property: "sessionEncryption", in: state.phase)
            invalidate(error)
            throw error
        }
        keys.establish(encryption: encryption, sessionTranscript: sessionTranscript)
    }

    /// Stores the decrypted request. Only in `connecting`.
    public func setRequest(_ request: ReceivedRequest) throws(SessionError) {
        try gate("request", sealed: self.request != nil, allowedIn: .connecting)
        self.request = request
    }

    /// Fails the session with `error` (unless it already ended) and releases its resources.
    public func invalidate(_ error: SessionError) {
        if !state.isTerminal { state = .failed(error) }
        release()
    }

    /// Wipes the keys and closes the connection handle (which stops advertising or disconnects).
    func release() {
        keys?.wipe()
        keys = nil
        connection?.close()
        connection = nil
    }

    /// Watches the session, its keys and its handle (for clean-up assertions).
    public func watch(with probe: LifetimeProbe) {
        probe.watch(self, as: "session")
        if let keys { probe.watch(keys, as: "keys") }
        if let connection { probe.watch(connection, as: "connectionHandle") }
    }

    private func gate(_ property: String, sealed: Bool, allowedIn phase: HolderSessionState.Phase) throws(SessionError) {
        if sealed {
            let error = SessionError.sealedPropertyRewritten(property: property)
            invalidate(error)
            throw error
        }
        guard state.phase == phase else {
            let error = SessionError.mutatorNotAllowed(property: property, in: state.phase)
            invalidate(error)
            throw error
        }
    }
}
