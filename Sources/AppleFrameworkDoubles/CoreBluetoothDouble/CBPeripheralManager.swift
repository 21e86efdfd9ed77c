#if !canImport(CoreBluetooth)
import Dispatch
import Foundation

/// Mirrors CoreBluetooth `CBPeripheralManagerDelegate`. `peripheralManagerDidUpdateState(_:)` is required; the others
/// are optional in CoreBluetooth, here requirements with empty defaults.
public protocol CBPeripheralManagerDelegate: NSObjectProtocol {
    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager)
    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?)
    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic)
    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest)
    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest])
    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager)
}

extension CBPeripheralManagerDelegate {
    public func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: (any Error)?) {}
    public func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: (any Error)?) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {}
    public func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {}
    public func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {}
    public func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {}
}

/// Mirrors CoreBluetooth `CBPeripheralManager`: publishes services in the host's GATT database, advertises, and
/// sends notifications to subscribed centrals. CoreBluetooth tells a peripheral manager nothing about connections:
/// it hears subscriptions, reads and writes only.
open class CBPeripheralManager: CBManager {
    /// `CBPeripheralManager.delegate` (weak, as in CoreBluetooth).
    public weak var delegate: (any CBPeripheralManagerDelegate)?
    var published: [CBMutableService] = []
    var advertisement: (services: [CBUUID], name: String?)?
    /// Notifications handed to the transmit queue and not yet on air.
    var queuedUpdates = 0
    /// `updateValue` returned false since the queue last had room: `peripheralManagerIsReady` is owed.
    var owesReady = false
    /// One `CBCentral` object per remote central, as CoreBluetooth hands out the same object each time.
    var centrals: [UUID: CBCentral] = [:]
    /// Read and write requests delivered and not answered yet.
    var pendingRequests: [UUID: PendingRequest] = [:]

    /// `CBPeripheralManager(delegate:queue:)`.
    public convenience init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?) {
        self.init(delegate: delegate, queue: queue, options: nil)
    }

    /// `CBPeripheralManager(delegate:queue:options:)`. The manager joins `BluetoothHost.current`, starts `.unknown`
    /// and is told the host's state on its queue (unless the host holds state reports back).
    public init(delegate: (any CBPeripheralManagerDelegate)?, queue: DispatchQueue?, options: [String: Any]? = nil) {
        let host = BluetoothHost.current
        super.init(host: host, queue: queue)
        self.delegate = delegate
        air.register(self)
    }

    deinit { air.managerGone(peripheralManager: self) }

    override func deliverStateUpdate() { delegate?.peripheralManagerDidUpdateState(self) }

    /// `CBPeripheralManager.isAdvertising`.
    public var isAdvertising: Bool { air.withLock { advertisement != nil } }

    /// `add(_:)`: publishes the service; `peripheralManager(_:didAdd:error:)` follows. A characteristic with a cached
    /// value must be read-only, as CoreBluetooth requires.
    public func add(_ service: CBMutableService) { air.add(self, service) }

    /// `removeAllServices()`: connected centrals that discovered a removed service are told it changed.
    public func removeAllServices() { air.removeAllServices(self) }

    /// `startAdvertising(_:)`: only `CBAdvertisementDataLocalNameKey` and `CBAdvertisementDataServiceUUIDsKey` are
    /// accepted, as CoreBluetooth documents; `peripheralManagerDidStartAdvertising(_:error:)` follows.
    public func startAdvertising(_ advertisementData: [String: Any]?) { air.startAdvertising(self, advertisementData) }

    /// `stopAdvertising()`.
    public func stopAdvertising() { air.stopAdvertising(self) }

    /// `updateValue(_:for:onSubscribedCentrals:)`: true if the notification went into the transmit queue; false
    /// if the queue is full, and `peripheralManagerIsReady(toUpdateSubscribers:)` follows once it has room.
    public func updateValue(
        _ value: Data, for characteristic: CBMutableCharacteristic, onSubscribedCentrals centrals: [CBCentral]?
    ) -> Bool {
        air.updateValue(self, value, characteristic, centrals)
    }

    /// `respond(to:withResult:)`: answers a read (or write) request, exactly once per request.
    public func respond(to request: CBATTRequest, withResult result: CBATTError.Code) {
        air.respond(self, request, result)
    }
}
#endif
