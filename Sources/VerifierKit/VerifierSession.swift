import Foundation
import MDoc
import ProximitySession
import ProximityTransport
import TesseraCore

/// What the reader derived from a scanned engagement: the engagement as received, the BLE endpoint it
/// announces, and the session secrets (EReaderKey, SKReader/SKDevice, SessionTranscript).
public final class ReaderSessionKeys: SessionSecrets {
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
    public let id = UUID()
    public let request: VerificationRequest
    /// The DeviceRequest sent, kept for the completeness checks of the verification.
    public private(set) var deviceRequest: DeviceRequest?
    public private(set) var response: DeviceResponse?
    private let core = SessionCore<VerifierSessionState, ReaderSessionKeys>(.notStarted)

    public var state: VerifierSessionState { core.state }
    public var keys: ReaderSessionKeys? { core.keys }
    public var connection: ConnectionHandle? { core.connection }

    public init(request: VerificationRequest) { self.request = request }

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

    public func invalidate(_ error: VerifierSessionError) { core.invalidate(error) }

    func release() { core.release() }

    public func watch(with probe: LifetimeProbe) { core.watch(self, with: probe) }
}
