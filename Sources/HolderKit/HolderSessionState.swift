import Foundation
import ProximitySession
import ProximityTransport

/// The holder's presentation as a state machine (ARCHITECTURE.md, "Seeds in one picture").
public enum HolderSessionState: ProximitySessionState, Equatable {
    /// The session exists; ``CryptoService/prepareEngagement(in:)`` builds its engagement.
    case notStarted
    /// Capabilities the presentation needs are missing; the UI calls ``HolderOrchestrator/resolve(_:)`` for each.
    case preflight(missing: Set<Capability>)
    /// Everything needed is available.
    case readyToPresent
    /// The QR code is shown and the transport advertises (or scans, in mdoc central client mode); waiting for a reader.
    case presentingEngagement
    /// A reader connected; waiting for its SessionEstablishment (§9.1.1.4).
    case connecting
    /// The decrypted request is in ``HolderOrchestrator/pendingRequest``; waiting for the user's consent.
    case requestReceived
    /// The user consented; the DeviceResponse is being generated, encrypted and sent.
    case processingResponse
    /// The response was sent with SessionData status 20 and the BLE End (final).
    case success
    /// The session failed for the reason given (final).
    case failed(HolderSessionError)
    /// The user denied or cancelled, or the reader or the link went away (final; never resumed).
    case cancelled

    /// The state without its payload: the key of the transition table.
    public enum Phase: String, ProximitySessionPhase, CaseIterable {
        /// One phase per state of ``HolderSessionState``, with the same name.
        case notStarted, preflight, readyToPresent, presentingEngagement, connecting, requestReceived
        /// The last phases; `success`, `failed` and `cancelled` are terminal.
        case processingResponse, success, failed, cancelled
    }

    /// The state without its payload, for the transition table and for display.
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
    /// `success`, `failed` and `cancelled` are final: nothing follows them (ARCHITECTURE.md decision 3).
    public var isTerminal: Bool { self == .success || self == .failed || self == .cancelled }
}
