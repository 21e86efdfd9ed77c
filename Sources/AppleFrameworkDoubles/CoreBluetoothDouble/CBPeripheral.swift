#if !canImport(CoreBluetooth)
import Foundation

/// Mirrors CoreBluetooth `CBPeripheralDelegate`; every method is optional in CoreBluetooth, here a requirement
/// with an empty default.
public protocol CBPeripheralDelegate: NSObjectProtocol {
    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?)
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService])
    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral)
}

extension CBPeripheralDelegate {
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: (any Error)?) {}
    public func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: (any Error)?) {}
    public func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: (any Error)?) {}
    public func peripheral(_ peripheral: CBPeripheral, didWriteValueFor characteristic: CBCharacteristic, error: (any Error)?) {}
    public func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: (any Error)?
    ) {}
    public func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {}
    public func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {}
}

/// Mirrors CoreBluetooth `CBPeripheral`: a remote peripheral as one central manager sees it. Its delegate is called
/// on that manager's queue; `services`, `CBService.characteristics`, `CBCharacteristic.value` and `isNotifying`
/// change there, just before the delegate call that reports them.
open class CBPeripheral: CBPeer {
    /// The manager this object belongs to (CoreBluetooth keeps it too; weak so the app's manager can go).
    weak var manager: CBCentralManager?
    let air: BluetoothAir
    var discoveredServices: [CBService]?
    let advertisedName: String?

    init(identifier: UUID, manager: CBCentralManager, name: String?) {
        self.manager = manager
        self.air = manager.air
        self.advertisedName = name
        super.init(identifier: identifier)
    }

    /// `CBPeripheral.delegate` (weak, as in CoreBluetooth).
    public weak var delegate: (any CBPeripheralDelegate)?

    /// `CBPeripheral.name`.
    public var name: String? { advertisedName }

    /// `CBPeripheral.services`: nil until `discoverServices(_:)` succeeded.
    public var services: [CBService]? { air.withLock { discoveredServices } }

    /// `discoverServices(_:)`: `peripheral(_:didDiscoverServices:)` follows.
    public func discoverServices(_ serviceUUIDs: [CBUUID]?) { air.discoverServices(self, serviceUUIDs) }

    /// `discoverCharacteristics(_:for:)`: `peripheral(_:didDiscoverCharacteristicsFor:error:)` follows.
    public func discoverCharacteristics(_ characteristicUUIDs: [CBUUID]?, for service: CBService) {
        air.discoverCharacteristics(self, characteristicUUIDs, service)
    }

    /// `readValue(for:)`: `peripheral(_:didUpdateValueFor:error:)` follows with the value or an ATT error.
    public func readValue(for characteristic: CBCharacteristic) { air.read(self, characteristic) }

    /// `setNotifyValue(_:for:)`: `peripheral(_:didUpdateNotificationStateFor:error:)` follows.
    public func setNotifyValue(_ enabled: Bool, for characteristic: CBCharacteristic) {
        air.setNotify(self, enabled, characteristic)
    }

    /// `writeValue(_:for:type:)`. `.withoutResponse`: a Write Command, sent only while `canSendWriteWithoutResponse`
    /// (otherwise dropped, and recorded as a misuse); `.withResponse`: `didWriteValueFor` follows.
    public func writeValue(_ data: Data, for characteristic: CBCharacteristic, type: CBCharacteristicWriteType) {
        air.write(self, data, characteristic, type)
    }

    /// `canSendWriteWithoutResponse` (iOS 11): false while the Write Command queue is full; once it has been
    /// flushed the value is true again and `peripheralIsReady(toSendWriteWithoutResponse:)` is called.
    public var canSendWriteWithoutResponse: Bool { air.canSendWriteWithoutResponse(self) }

    /// `maximumWriteValueLength(for:)` (iOS 9): ATT_MTU − 3 for Write Commands, 512 for Write Requests (long writes).
    public func maximumWriteValueLength(for type: CBCharacteristicWriteType) -> Int {
        air.maximumWriteValueLength(self, type)
    }
}
#endif
