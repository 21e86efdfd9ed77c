import Foundation
import ProximitySession
import ProximityTransport

/// The reader's verification as a state machine (ARCHITECTURE.md, "Seeds in one picture").
public enum VerifierSessionState: ProximitySessionState {
    case notStarted
    case preflight(missing: Set<Capability>)
    case readyToScan
    case processingEngagement
    case connecting
    case verifying
    case success(VerifiedResponse)
    case failed(VerifierSessionError)
    case cancelled

    public enum Phase: String, ProximitySessionPhase, CaseIterable {
        case notStarted, preflight, readyToScan, processingEngagement, connecting, verifying, success, failed, cancelled
    }

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
    public var isTerminal: Bool { self == .success || self == .failed || self == .cancelled }
}
