import Foundation
import MDoc
import ProximityTransport
import TesseraCore

/// What the reader derived from a scanned engagement: the engagement as received, the BLE endpoint it
/// announces, and the session secrets (EReaderKey, SKReader/SKDevice, SessionTranscript).
public final class ReaderSessionKeys {
    public let deviceEngagementBytes: Data
    public let endpoint: BLEEndpoint
    public private(set) var eReaderKey: EphemeralPrivateKey?
    public private(set) var encryption: SessionEncryption?
    public let sessionTranscript: SessionTranscript

    init(
        deviceEngagementBytes: Data, endpoint: BLEEndpoint, eReaderKey: EphemeralPrivateKey, encryption: SessionEncryption,
        sessionTranscript: SessionTranscript
    ) {
        self.deviceEngagementBytes = deviceEngagementBytes
        self.endpoint = endpoint
        self.eReaderKey = eReaderKey
        self.encryption = encryption
        self.sessionTranscript = sessionTranscript
    }

    /// Drops the private key and the session keys (swift-crypto zeroises them when freed).
    func wipe() {
        eReaderKey = nil
        encryption = nil
    }

    deinit { wipe() }
}

/// One verification, used once: a passive state machine owned by the `VerifierOrchestrator`, holding the
/// reader's ephemeral keys and the connection handle, both released in `deinit`. Sealed properties:
/// `setEngagement` only in `processingEngagement`, `setConnection` only in `connecting`, `setResponse`
/// only in `verifying`; a second write invalidates the session.
public final class VerifierSession {
    public let id = UUID()
    public let request: VerificationRequest
    public private(set) var state: VerifierSessionState = .notStarted
    public private(set) var keys: ReaderSessionKeys?
    public private(set) var connection: ConnectionHandle?
    /// The DeviceRequest sent, kept for the completeness checks of the verification.
    public private(set) var deviceRequest: DeviceRequest?
    public private(set) var response: DeviceResponse?

    public init(request: VerificationRequest) { self.request = request }

    deinit { release() }

    public func transition(to next: VerifierSessionState) throws(SessionError) {
        guard state.canTransition(to: next) else {
            let error = SessionError.invalidTransition(from: state.phase, to: next.phase)
            invalidate(error)
            throw error
        }
        state = next
        if next.isTerminal { release() }
    }

    /// Stores what the engagement yielded and seals the reader's ephemeral key. Only in `processingEngagement`.
    public func setEngagement(_ keys: ReaderSessionKeys) throws(SessionError) {
        try gate("engagement", sealed: self.keys != nil, allowedIn: .processingEngagement)
        self.keys = keys
    }

    /// Gives the connection handle to the session. Only in `connecting`.
    public func setConnection(_ handle: ConnectionHandle) throws(SessionError) {
        do {
            try gate("connection", sealed: connection != nil, allowedIn: .connecting)
        } catch {
            handle.close()
            throw error
        }
        connection = handle
    }

    /// Records the DeviceRequest sent. Only in `connecting`.
    public func setDeviceRequest(_ request: DeviceRequest) throws(SessionError) {
        try gate("deviceRequest", sealed: deviceRequest != nil, allowedIn: .connecting)
        deviceRequest = request
    }

    /// Stores the decrypted DeviceResponse. Only in `verifying`.
    public func setResponse(_ response: DeviceResponse) throws(SessionError) {
        try gate("response", sealed: self.response != nil, allowedIn: .verifying)
        self.response = response
    }

    public func invalidate(_ error: SessionError) {
        if !state.isTerminal { state = .failed(error) }
        release()
    }

    func release() {
        keys?.wipe()
        keys = nil
        connection?.close()
        connection = nil
    }

    public func watch(with probe: LifetimeProbe) {
        probe.watch(self, as: "session")
        if let keys { probe.watch(keys, as: "keys") }
        if let connection { probe.watch(connection, as: "connectionHandle") }
    }

    private func gate(_ property: String, sealed: Bool, allowedIn phase: VerifierSessionState.Phase) throws(SessionError) {
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
