#if !canImport(CoreBluetooth)
import Dispatch
import Foundation

/// Mirrors CoreBluetooth `CBManager`, the base of the central and peripheral managers.
open class CBManager: NSObject {
    let air: BluetoothAir
    let host: BluetoothHost
    let queue: DispatchQueue
    /// What the app has been told (`state`); changed on the manager's queue just before
    /// `…DidUpdateState` is called, under the air's lock.
    var reportedState: CBManagerState = .unknown

    init(host: BluetoothHost, queue: DispatchQueue?) {
        self.air = host.air
        self.host = host
        // CoreBluetooth: "If the value is nil, the manager dispatches events using the main queue."
        self.queue = queue ?? .main
        super.init()
    }

    /// `CBManager.state`: the state last reported to the delegate (`.unknown` until the first report).
    public var state: CBManagerState { air.withLock { reportedState } }

    /// `CBManager.authorization` (iOS 13.1): the app's Bluetooth authorization on the current host
    /// (`BluetoothHost.current`).
    public class var authorization: CBManagerAuthorization { BluetoothHost.current.authorization }

    /// Calls the delegate with the host's state, as CoreBluetooth does on the manager's queue.
    func reportState(_ state: CBManagerState) {
        air.post(queue, self) { manager in
            manager.air.withLock { manager.reportedState = state }
            manager.deliverStateUpdate()
        }
    }

    /// Overridden by each manager: calls its delegate's `…DidUpdateState(_:)`.
    func deliverStateUpdate() {}

    /// Records an API misuse the way CoreBluetooth logs "API MISUSE: … can only accept this command while in the
    /// powered on state"; false when the command must be ignored. Call under the air's lock.
    func requirePoweredOn(_ command: String) -> Bool {
        guard reportedState == .poweredOn else {
            host.misuseLog.append(
                "\(type(of: self)).\(command) while \(reportedState) "
                    + "(API MISUSE: can only accept this command while in the powered on state)")
            return false
        }
        return true
    }
}

/// Mirrors CoreBluetooth `CBCentralManagerDelegate`. `centralManagerDidUpdateState(_:)` is required; the others are
/// optional in CoreBluetooth (`@objc optional`), here requirements with empty defaults.
public protocol CBCentralManagerDelegate: NSObjectProtocol {
    func centralManagerDidUpdateState(_ central: CBCentralManager)
    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber)
    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral)
    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?)
    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?)
}

extension CBCentralManagerDelegate {
    public func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {}
    public func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {}
    public func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: (any Error)?) {}
    public func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: (any Error)?
    ) {}
}

/// Mirrors CoreBluetooth `CBCentralManager`: scans for, connects to and disconnects from peripherals. Every
/// delegate call arrives on the queue given at creation, in the order CoreBluetooth documents.
open class CBCentralManager: CBManager {
    /// `CBCentralManager.delegate` (weak, as in CoreBluetooth).
    public weak var delegate: (any CBCentralManagerDelegate)?
    /// Scan filter while scanning (nil services = every peripheral), and the devices already reported.
    var scan: (services: [CBUUID]?, reported: Set<UUID>)?
    /// One `CBPeripheral` object per remote device, as CoreBluetooth hands out the same object each time.
    var peripherals: [UUID: CBPeripheral] = [:]
    /// Devices `connect(_:options:)` was called for and which are not connected yet.
    var pendingConnections: Set<UUID> = []

    /// `CBCentralManager(delegate:queue:)`.
    public convenience init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    /// `CBCentralManager(delegate:queue:options:)`. The manager joins `BluetoothHost.current`, starts `.unknown`
    /// and is told the host's state on its queue (unless the host holds state reports back).
    public init(delegate: (any CBCentralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        let host = BluetoothHost.current
        super.init(host: host, queue: queue)
        self.delegate = delegate
        air.register(self)
    }

    deinit { air.managerGone(central: self) }

    override func deliverStateUpdate() { delegate?.centralManagerDidUpdateState(self) }

    /// `CBCentralManager.isScanning`.
    public var isScanning: Bool { air.withLock { scan != nil } }

    /// `scanForPeripherals(withServices:options:)`: reports each advertising device offering one of `serviceUUIDs`
    /// once per scan (no `CBCentralManagerScanOptionAllowDuplicatesKey` support).
    public func scanForPeripherals(withServices serviceUUIDs: [CBUUID]?, options: [String: Any]? = nil) {
        air.scan(self, services: serviceUUIDs)
    }

    /// `stopScan()`.
    public func stopScan() { air.stopScan(self) }

    /// `connect(_:options:)`: `centralManager(_:didConnect:)` follows, or `didFailToConnect`. Connection attempts
    /// never time out, as in CoreBluetooth; `cancelPeripheralConnection(_:)` ends one.
    public func connect(_ peripheral: CBPeripheral, options: [String: Any]? = nil) { air.connect(self, peripheral) }

    /// `cancelPeripheralConnection(_:)`: ends an active or pending connection; `didDisconnectPeripheral` follows
    /// with no error.
    public func cancelPeripheralConnection(_ peripheral: CBPeripheral) { air.cancelConnection(self, peripheral) }

    /// `retrieveConnectedPeripherals(withServices:)`: the peripherals connected to this host whose GATT database
    /// holds one of the services. A connection still pending is not connected, so it is not in the list.
    public func retrieveConnectedPeripherals(withServices serviceUUIDs: [CBUUID]) -> [CBPeripheral] {
        air.retrieveConnected(self, services: serviceUUIDs)
    }
}
#endif
