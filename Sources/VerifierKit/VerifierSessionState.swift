import Foundation
import ProximitySession
import ProximityTransport

/// The reader's verification as a state machine (ARCHITECTURE.md, "Seeds in one picture").
public enum VerifierSessionState: ProximitySessionState {
    /// The session exists; prerequisites are checked next.
    case notStarted
    /// Capabilities the verification needs are missing; the UI calls ``VerifierOrchestrator/resolve(_:)`` for each.
    case preflight(missing: Set<Capability>)
    /// The camera is scanning for the holder's QR engagement.
    case readyToScan
    /// The engagement was scanned; EReaderKey and the session keys are derived from it.
    case processingEngagement
    /// Connecting to the holder over BLE, sending the SessionEstablishment and waiting for its SessionData.
    case connecting
    /// The DeviceResponse arrived and is being verified against the trust anchors.
    case verifying
    /// The response verified; what it holds (final).
    case success(VerifiedResponse)
    /// The verification failed for the reason given (final).
    case failed(VerifierSessionError)
    /// Cancelled by the user (final; never resumed).
    case cancelled

    /// The state without its payload: the key of the transition table.
    public enum Phase: String, ProximitySessionPhase, CaseIterable {
        /// One phase per state of ``VerifierSessionState``, with the same name; `success`, `failed` and `cancelled` are terminal.
        case notStarted, preflight, readyToScan, processingEngagement, connecting, verifying, success, failed, cancelled
    }

    /// The state without its payload, for the transition table and for display.
    public var phase: Phase {
        switch self {
        case .notStarted: .notStarted
        case .preflight: .preflight
        case .readyToScan: .readyToScan
        case .processingEngagement: .processingEngagement
        case .connecting: .connecting
        case .verifying: .verifying
        case .success: .success
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }

    /// Every allowed transition; any non-terminal state may fail or be cancelled.
    public static let allowedTransitions: [Phase: Set<Phase>] = {
        let exits: Set<Phase> = [.failed, .cancelled]
        return [
            .notStarted: exits.union([.preflight, .readyToScan]),
            .preflight: exits.union([.preflight, .readyToScan]),
            .readyToScan: exits.union([.processingEngagement]),
            .processingEngagement: exits.union([.connecting]),
            .connecting: exits.union([.verifying]),
            .verifying: exits.union([.success]),
            .success: [], .failed: [], .cancelled: [],
        ]
    }()


    /// The error of a failed session.
    public var error: VerifierSessionError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

extension VerifierSessionState.Phase {
    /// `success`, `failed` and `cancelled` are final: nothing follows them (ARCHITECTURE.md decision 3).
    public var isTerminal: Bool { self == .success || self == .failed || self == .cancelled }
}
