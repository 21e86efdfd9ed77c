import Foundation

/// Everything that can go wrong while moving SessionEstablishment / SessionData bytes over the
/// ISO/IEC 18013-5:2021 BLE GATT protocol (§8.3.3.1.1). Each case names the rule or event.
public enum TransportError: Error, Sendable, Equatable, Hashable {
    /// The radio is off or missing.
    case radioUnavailable
    /// The platform refused Bluetooth access.
    case permissionDenied
    /// Nothing is advertised under that service UUID (scan timed out, §8.3.3.1.1.2).
    case serviceNotFound(UUID)
    /// This service UUID is already advertised on the radio.
    case alreadyAdvertising(UUID)
    /// Central client mode: the mdoc read an Ident characteristic from the mdoc reader service that differs
    /// from the value it derived from EDeviceKeyBytes (§8.3.3.1.1.4).
    case identMismatch
    /// The connected service lacks a characteristic Table 11 / Table 12 requires (§8.3.3.1.1.3).
    case characteristicNotFound(UUID)
    /// The endpoint cannot be used as given (e.g. central client mode without a 16-byte Ident).
    case invalidEndpoint(String)
    /// The link dropped or the peer went away.
    case disconnected
    /// The peer wrote State End (0x02, §8.3.3.1.1.5, Table 13).
    case sessionEnded
    /// The peer broke the GATT protocol of §8.3.3.1.1.5–6 (the text names the rule).
    case protocolViolation(String)
    /// A reassembled message would exceed the configured limit.
    case messageTooLarge(limit: Int)
    /// A configured time limit passed.
    case timedOut
    /// The local handle was closed, or the waiting task was cancelled.
    case closed
}

extension TransportError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .radioUnavailable: return "Bluetooth radio unavailable"
        case .permissionDenied: return "Bluetooth permission denied"
        case .serviceNotFound(let uuid): return "no service advertised under \(uuid.uuidString)"
        case .alreadyAdvertising(let uuid): return "service \(uuid.uuidString) is already advertised"
        case .identMismatch: return "Ident characteristic does not match (ISO 18013-5 §8.3.3.1.1.4)"
        case .characteristicNotFound(let uuid): return "characteristic \(uuid.uuidString) missing from the service"
        case .invalidEndpoint(let why): return "invalid BLE endpoint: \(why)"
        case .disconnected: return "BLE link disconnected"
        case .sessionEnded: return "peer ended the session (State End 0x02)"
        case .protocolViolation(let rule): return "BLE protocol violation: \(rule)"
        case .messageTooLarge(let limit): return "message exceeds the \(limit)-byte limit"
        case .timedOut: return "timed out"
        case .closed: return "connection handle closed"
        }
    }
}
