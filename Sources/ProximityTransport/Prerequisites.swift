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

/// The prerequisites of the loopback radio on Linux, whose "radio" is a runtime directory of Unix
/// sockets: powered on when the directory exists, permitted when this user may create sockets in it.
/// `resolve` powers it on (creates the directory, 0700). The text camera needs no permission.
public struct LoopbackRadioGate: PrerequisiteGate {
    public let directory: URL

    public init(directory: URL) { self.directory = directory }

    public func missing(_ required: Set<Capability>) async -> Set<Capability> {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        let on = fm.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue
        var missing = Set<Capability>()
        if required.contains(.bluetoothPoweredOn), !on { missing.insert(.bluetoothPoweredOn) }
        if required.contains(.bluetoothPermission), on, !fm.isWritableFile(atPath: directory.path) {
            missing.insert(.bluetoothPermission)
        }
        return missing
    }

    public func resolve(_ capability: Capability) async {
        switch capability {
        case .bluetoothPoweredOn:
            try? FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        case .bluetoothPermission, .cameraPermission:
            // Nothing to ask for: permissions are the directory's mode, which only its owner can change.
            break
        }
    }
}
