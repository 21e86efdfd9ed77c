import Foundation

/// Something a proximity presentation needs from the device before it can start. The holder needs the
/// radio; the reader needs the radio and a camera to scan the QR engagement.
public enum Capability: String, Sendable, Hashable, CaseIterable, Codable {
    /// The radio is present and powered on.
    case bluetoothPoweredOn
    /// The app may use the radio (advertise, scan, connect).
    case bluetoothPermission
    /// The app may use the camera (reader only).
    case cameraPermission
}

/// Reports which capabilities are missing and tries to obtain one (ask for a permission, power the radio).
/// The orchestrators loop over it until nothing is missing (the `preflight` state).
public protocol PrerequisiteGate: Sendable {
    /// The capabilities among `required` that are not available right now.
    func missing(_ required: Set<Capability>) async -> Set<Capability>
    /// Tries to make `capability` available (on Apple platforms: shows the permission prompt). The
    /// orchestrator checks `missing` again afterwards, so a refused request simply stays missing.
    func resolve(_ capability: Capability) async
}
