import Foundation
import MDoc
import ProximitySession
import ProximityTransport
import TesseraCore

/// What the reader derived from a scanned engagement: the engagement as received, the BLE endpoint it
/// announces, and the session secrets (EReaderKey, SKReader/SKDevice, SessionTranscript).
public final class ReaderSessionKeys: SessionSecrets {
    /// The DeviceEngagement exactly as scanned: these bytes enter the SessionTranscript (§9.1.5.1, decision 1).
    public let deviceEngagementBytes: Data
    /// The BLE endpoint the engagement announces (peripheral server mode preferred).
    public let endpoint: BLEEndpoint
    /// EReaderKey, the reader's ephemeral key-agreement key, on EDeviceKey's curve (§9.1.5.2); nil once wiped.
    public private(set) var eReaderKey: EphemeralPrivateKey?
    /// SKReader and SKDevice with their counters (§9.1.1.5); nil once wiped.
    public private(set) var encryption: SessionEncryption?
    /// The SessionTranscript (QR handover) that DeviceAuthentication and ReaderAuthentication are bound to.
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
    public func wipe() {
        eReaderKey = nil
        encryption = nil
    }

    deinit { wipe() }
}

/// One verification, used once: a passive state machine owned by the `VerifierOrchestrator`, holding the
/// reader's ephemeral keys and the connection handle, both released in `deinit`. Sealed properties:
/// `setEngagement` only in `processingEngagement`, `setConnection` only in `connecting`, `setResponse`
/// only in `verifying`; a second write invalidates the session.
public final class VerifierSession: ManagedSession {
    /// Distinguishes this session from its successors in the orchestrator's background tasks.
    public let id = UUID()
    /// What this verification asks for.
    public let request: VerificationRequest
    /// The DeviceRequest sent, kept for the completeness checks of the verification.
    public private(set) var deviceRequest: DeviceRequest?
    /// The decrypted DeviceResponse; sealed, set by ``setResponse(_:)`` in `verifying` only.
    public private(set) var response: DeviceResponse?
    private let core = SessionCore<VerifierSessionState, ReaderSessionKeys>(.notStarted)

    /// The current state; it changes only through ``transition(to:)`` and ``invalidate(_:)``.
    public var state: VerifierSessionState { core.state }
    /// What the engagement yielded; nil before it was processed and after release.
    public var keys: ReaderSessionKeys? { core.keys }
    /// The BLE connection the session owns; nil before connecting and after release.
    public var connection: ConnectionHandle? { core.connection }

    /// A new session in `notStarted`. ``VerifierOrchestrator`` makes one per verification.
    public init(request: VerificationRequest) { self.request = request }

    /// Moves to `next` if ``VerifierSessionState/allowedTransitions`` allows it; otherwise the session fails with
    /// ``VerifierSessionError/invalidTransition(from:to:)``.
    public func transition(to next: VerifierSessionState) throws(VerifierSessionError) {
        try core.transition(to: next)
    }

    /// Stores what the engagement yielded and seals the reader's ephemeral key. Only in `processingEngagement`.
    public func setEngagement(_ keys: ReaderSessionKeys) throws(VerifierSessionError) {
        try core.setKeys(keys, allowedIn: .processingEngagement)
    }

    /// Gives the connection handle to the session. Only in `connecting`.
    public func setConnection(_ handle: ConnectionHandle) throws(VerifierSessionError) {
        try core.setConnection(handle, allowedIn: .connecting)
    }

    /// Records the DeviceRequest sent. Only in `connecting`.
    public func setDeviceRequest(_ request: DeviceRequest) throws(VerifierSessionError) {
        try core.gate("deviceRequest", sealed: deviceRequest != nil, allowedIn: .connecting)
        deviceRequest = request
    }

    /// Stores the decrypted DeviceResponse. Only in `verifying`.
    public func setResponse(_ response: DeviceResponse) throws(VerifierSessionError) {
        try core.gate("response", sealed: self.response != nil, allowedIn: .verifying)
        self.response = response
    }

    /// Fails the session with `error` (unless it already ended) and releases its keys and connection.
    public func invalidate(_ error: VerifierSessionError) { core.invalidate(error) }

    func release() { core.release() }

    /// Watches the session, its keys and its handle (for clean-up assertions).
    public func watch(with probe: LifetimeProbe) { core.watch(self, with: probe) }
}
