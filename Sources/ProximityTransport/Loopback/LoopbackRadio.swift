import Foundation
import Synchronization

/// A radio between OS processes on one machine: advertising a service means listening on the Unix domain socket
/// `<directory>/<service-uuid>.sock`; scanning means connecting to it. GATT operations travel as
/// `LoopbackFrame`s; chunking and the State handshake happen above, in the same engine as on real BLE. The socket
/// file disappears when advertising stops (transmission started, handle closed or released). A peer process that
/// dies closes its socket, which the other side sees as `.disconnected`.
public final class LoopbackRadio: GATTRadio {
    /// Where the sockets live.
    public let directory: URL
    /// The highest ATT_MTU this radio negotiates (as central it asks for it, as peripheral it accepts up to it).
    public let attMTU: Int
    public let defaultScanTimeout: Duration?
    /// How often a scan looks for the socket.
    public let scanInterval: Duration
    private let servers = Mutex<[UUID: WeakServer]>([:])

    private struct WeakServer: Sendable {
        weak var link: LoopbackServerLink?
    }

    /// `$XDG_RUNTIME_DIR/tessera-ble`, else `/tmp/tessera-ble-<uid>`.
    public static var defaultDirectory: URL {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return URL(fileURLWithPath: runtime, isDirectory: true).appendingPathComponent("tessera-ble")
        }
        return URL(fileURLWithPath: "/tmp/tessera-ble-\(UnixSocket.currentUserID)", isDirectory: true)
    }

    public init(
        directory: URL = LoopbackRadio.defaultDirectory, attMTU: Int = 185, scanTimeout: Duration = .seconds(5),
        scanInterval: Duration = .milliseconds(20)
    ) {
        self.directory = directory
        self.attMTU = attMTU
        self.defaultScanTimeout = scanTimeout
        self.scanInterval = scanInterval
    }

    /// The socket a service is advertised at.
    public func socketPath(for service: UUID) -> String {
        directory.appendingPathComponent(service.uuidString.lowercased() + ".sock").path
    }

    /// Whether the runtime directory exists (or can be made) and socket paths fit.
    public var isAvailable: Bool {
        (try? prepareDirectory()) != nil && socketPath(for: UUID()).utf8.count <= UnixSocket.maximumPathLength
    }

    private func prepareDirectory() throws(TransportError) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .radioUnavailable }
            return
        }
        do {
            try fm.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .radioUnavailable
        }
    }

    public func advertise(
        _ service: GATTServiceDefinition, events: @escaping @Sendable (GATTServerEvent) -> Void
    ) async throws(TransportError) -> any GATTServerLink {
        try prepareDirectory()
        let path = socketPath(for: service.uuid)
        guard path.utf8.count <= UnixSocket.maximumPathLength else { throw .radioUnavailable }
        if servers.withLock({ $0[service.uuid]?.link?.isAdvertising == true }) {
            throw .alreadyAdvertising(service.uuid)
        }
        if FileManager.default.fileExists(atPath: path) {
            // Someone listening there advertises already; a socket nobody listens on is left over from a process
            // that died, and is replaced.
            if let probe = try? UnixSocket.connect(path: path) {
                UnixSocket.closeDescriptor(probe)
                throw .alreadyAdvertising(service.uuid)
            }
            UnixSocket.unlinkPath(path)
        }
        let link: LoopbackServerLink
        do {
            link = try LoopbackServerLink(path: path, definition: service, maximumMTU: attMTU, events: events)
        } catch let failure {
            if failure.errno == EADDRINUSE { throw .alreadyAdvertising(service.uuid) }
            throw .radioUnavailable
        }
        servers.withLock { $0[service.uuid] = WeakServer(link: link) }
        return link
    }

    public func connect(
        service: UUID, scanTimeout: Duration?, events: @escaping @Sendable (GATTClientEvent) -> Void
    ) async throws(TransportError) -> any GATTClientLink {
        let path = socketPath(for: service)
        guard path.utf8.count <= UnixSocket.maximumPathLength else { throw .radioUnavailable }
        let clock = ContinuousClock()
        let deadline = scanTimeout.map { clock.now + $0 }
        while true {
            if Task.isCancelled { throw .closed }
            if let link = try await LoopbackClientLink.open(
                path: path, service: service, requestedMTU: attMTU, events: events)
            {
                return link
            }
            if let deadline, clock.now >= deadline { throw .serviceNotFound(service) }
            do {
                try await Task.sleep(for: scanInterval)
            } catch {
                throw .closed
            }
        }
    }

    public var advertisedServices: Set<UUID> {
        get async {
            servers.withLock { servers in
                servers = servers.filter { $0.value.link != nil }
                return Set(servers.filter { $0.value.link?.isAdvertising == true }.keys)
            }
        }
    }
}
