import Foundation

/// Opens ISO 18013-5 BLE connections (§8.3.3.1.1) for the mdoc and the mdoc reader.
public protocol BluetoothTransport: AnyObject, Sendable {
    /// mdoc side. Peripheral server mode: advertise the mdoc service (State, Client2Server, Server2Client;
    /// Table 11). Central client mode: scan for the reader's service in the background, connect, read and check
    /// Ident, subscribe, write State start. Returns at once; the handle's `waitForConnection()` completes when the
    /// link is up and State start (0x01) was written.
    func startAdvertising(_ endpoint: BLEEndpoint) async throws(TransportError) -> ConnectionHandle
    /// Reader side. Peripheral server mode: find the mdoc's service, connect, subscribe, write State start.
    /// Central client mode: advertise the mdoc reader service (with Ident, Table 12) and wait for the mdoc.
    /// Returns once connected.
    func connect(_ endpoint: BLEEndpoint) async throws(TransportError) -> ConnectionHandle
    /// Services this transport currently advertises (used by tests to assert clean-up).
    var advertisedServices: Set<UUID> { get async }
}

/// The one `BluetoothTransport`: the protocol engine over any `GATTRadio` (simulated, loopback, CoreBluetooth).
public final class BLETransport: BluetoothTransport {
    public let radio: any GATTRadio
    public let configuration: BLETransportConfiguration

    public init(radio: any GATTRadio, configuration: BLETransportConfiguration = BLETransportConfiguration()) {
        self.radio = radio
        self.configuration = configuration
    }

    public var isAvailable: Bool { radio.isAvailable }

    public func startAdvertising(_ endpoint: BLEEndpoint) async throws(TransportError) -> ConnectionHandle {
        let connection = BLEConnection(role: .mdoc, endpoint: endpoint, configuration: configuration, radio: radio)
        switch endpoint.mode {
        case .mdocPeripheralServer:
            try await connection.startServer()
        case .mdocCentralClient:
            try connection.startClientInBackground(scanTimeout: nil)
        }
        return ConnectionHandle(connection: connection, transport: self)
    }

    public func connect(_ endpoint: BLEEndpoint) async throws(TransportError) -> ConnectionHandle {
        let connection = BLEConnection(
            role: .mdocReader, endpoint: endpoint, configuration: configuration, radio: radio)
        do throws(TransportError) {
            switch endpoint.mode {
            case .mdocPeripheralServer:
                try connection.startClientInBackground(
                    scanTimeout: configuration.scanTimeout ?? radio.defaultScanTimeout)
                try await connection.waitForConnection()
            case .mdocCentralClient:
                try await connection.startServer()
                try await connection.waitForConnection()
            }
        } catch {
            connection.close()
            throw error
        }
        return ConnectionHandle(connection: connection, transport: self)
    }

    public var advertisedServices: Set<UUID> {
        get async { await radio.advertisedServices }
    }
}
