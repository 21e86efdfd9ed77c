import Foundation

/// Which side plays the BLE peripheral / GATT server (§8.3.3.1.1.1): in mdoc peripheral server mode the mdoc
/// advertises and serves the mdoc service (Table 11); in mdoc central client mode the mdoc reader advertises and
/// serves the mdoc reader service (Table 12) and the mdoc scans and connects as GATT client.
public enum BLEMode: Sendable, Hashable {
    case mdocPeripheralServer
    case mdocCentralClient
}

/// The ISO 18013-5 role of the local device.
public enum BLERole: Sendable, Hashable {
    case mdoc
    case mdocReader
}

/// Where and how to meet the peer: the service UUID from the DeviceEngagement's BLE options and the mode.
public struct BLEEndpoint: Sendable, Hashable {
    public var serviceUUID: UUID
    public var mode: BLEMode
    /// Ident characteristic value: 16 bytes, HKDF-SHA-256 of EDeviceKeyBytes with an empty salt and info "BLEIdent"
    /// (§8.3.3.1.1.4). Table 12 puts the Ident characteristic in the **mdoc reader** service, so it is used in
    /// central client mode: the mdoc reader (GATT server) serves it, the mdoc reads it and must find exactly this
    /// value (else `.identMismatch`); both sides need it. Table 11 (peripheral server mode) has no Ident
    /// characteristic, so the value is ignored there.
    public var ident: Data?

    public init(serviceUUID: UUID, mode: BLEMode, ident: Data? = nil) {
        self.serviceUUID = serviceUUID
        self.mode = mode
        self.ident = ident
    }

    /// The GATT role the local device plays for `role` in this endpoint's mode.
    func gattRole(for role: BLERole) -> GATTRole {
        switch (mode, role) {
        case (.mdocPeripheralServer, .mdoc), (.mdocCentralClient, .mdocReader): return .server
        case (.mdocPeripheralServer, .mdocReader), (.mdocCentralClient, .mdoc): return .client
        }
    }

    /// The Ident value this endpoint needs in its mode, checked for length (§8.3.3.1.1.4: 16 bytes).
    func requiredIdent() throws(TransportError) -> Data? {
        guard mode == .mdocCentralClient else { return nil }
        guard let ident else {
            throw .invalidEndpoint("central client mode needs the 16-byte Ident value (§8.3.3.1.1.4)")
        }
        guard ident.count == BLEServiceCharacteristics.identLength else {
            throw .invalidEndpoint("Ident must be \(BLEServiceCharacteristics.identLength) bytes, got \(ident.count)")
        }
        return ident
    }
}

/// GATT server (peripheral) or GATT client (central).
enum GATTRole: Sendable, Hashable {
    case server
    case client
}
