import Foundation
import ProximitySession
import ProximityTransport

/// The holder's presentation as a state machine (ARCHITECTURE.md, "Seeds in one picture").
public enum HolderSessionState: ProximitySessionState, Equatable {
    case notStarted
    case preflight(missing: Set<Capability>)
    case readyToPresent
    case presentingEngagement
    case connecting
    case requestReceived
    case processingResponse
    case success
    case failed(HolderSessionError)
    case cancelled

    /// The state without its payload: the key of the transition table.
    public enum Phase: String, ProximitySessionPhase, CaseIterable {
        case notStarted, preflight, readyToPresent, presentingEngagement, connecting, requestReceived
        case processingResponse, success, failed, cancelled
    }

    public var phase: Phase {
        switch self {
        case .notStarted: .notStarted
        case .preflight: .preflight
        case .readyToPresent: .readyToPresent
        case .presentingEngagement: .presentingEngagement
        case .connecting: .connecting
        case .requestReceived: .requestReceived
        case .processingResponse: .processingResponse
        case .success: .success
        case .failed: .failed
        case .cancelled: .cancelled
        }
    }

    /// Every allowed transition. Any non-terminal state may fail or be cancelled; `preflight` may repeat
    /// (the missing set shrinks as capabilities are resolved).
    public static let allowedTransitions: [Phase: Set<Phase>] = {
        let exits: Set<Phase> = [.failed, .cancelled]
        return [
            .notStarted: exits.union([.preflight, .readyToPresent]),
            .preflight: exits.union([.preflight, .readyToPresent]),
            .readyToPresent: exits.union([.presentingEngagement]),
            .presentingEngagement: exits.union([.connecting]),
            .connecting: exits.union([.requestReceived]),
            .requestReceived: exits.union([.processingResponse]),
            .processingResponse: exits.union([.success]),
            .success: [], .failed: [], .cancelled: [],
        ]
    }()
}

extension HolderSessionState.Phase {
    public var isTerminal: Bool { self == .success || self == .failed || self == .cancelled }
}
