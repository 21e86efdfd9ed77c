#if !canImport(CoreBluetooth)
import Foundation

/// Mirrors CoreBluetooth `CBUUID`: a 16-, 32- or 128-bit Bluetooth UUID. Equal when the bytes are equal, as
/// `-[CBUUID isEqual:]` is.
open class CBUUID: NSObject {
    /// The UUID's bytes, big-endian: 2, 4 or 16 of them (`CBUUID.data`).
    public let data: Data

    /// `CBUUID(nsuuid:)`: the 16 bytes of a 128-bit UUID.
    public init(nsuuid: UUID) {
        data = withUnsafeBytes(of: nsuuid.uuid) { Data($0) }
        super.init()
    }

    /// `CBUUID(data:)`: 2, 4 or 16 bytes.
    public init(data: Data) {
        self.data = data
        super.init()
    }

    /// `CBUUID(string:)`: "180D", "0000180D" or "6E400001-B5A3-F393-E0A9-E50E24DCCA9E". Apple raises an
    /// Objective-C exception on anything else; the double keeps the UTF-8 bytes so the mistake shows in a test.
    public convenience init(string: String) {
        if string.count == 36, let uuid = UUID(uuidString: string) {
            self.init(nsuuid: uuid)
        } else if [4, 8].contains(string.count), let value = UInt32(string, radix: 16) {
            let bytes = withUnsafeBytes(of: value.bigEndian) { Data($0) }
            self.init(data: bytes.suffix(string.count / 2))
        } else {
            self.init(data: Data(string.utf8))
        }
    }

    /// `CBUUID.uuidString`: upper-case hex, dashed for 128-bit UUIDs.
    public var uuidString: String {
        if let uuid = UUID(bytes: data) { return uuid.uuidString }
        return data.map { String(format: "%02X", $0) }.joined()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CBUUID else { return false }
        return other.data == data
    }

    open override var hash: Int { data.hashValue }

    open override var description: String { uuidString }
}

/// Mirrors CoreBluetooth `CBAttribute`, the abstract base of services, characteristics and descriptors.
open class CBAttribute: NSObject {
    /// `CBAttribute.uuid`.
    public let uuid: CBUUID

    init(uuid: CBUUID) {
        self.uuid = uuid
        super.init()
    }
}

/// Mirrors CoreBluetooth `CBService`: a service of a remote peripheral as discovered (`CBPeripheral.services`), or
/// the base of a local `CBMutableService`.
open class CBService: CBAttribute {
    var storedCharacteristics: [CBCharacteristic]?
    let primary: Bool

    init(uuid: CBUUID, primary: Bool) {
        self.primary = primary
        super.init(uuid: uuid)
    }

    /// `CBService.isPrimary`.
    public var isPrimary: Bool { primary }

    /// `CBService.peripheral`: the remote peripheral the service belongs to (weak, as in CoreBluetooth).
    public internal(set) weak var peripheral: CBPeripheral?

    /// `CBService.characteristics`: nil until `discoverCharacteristics(_:for:)` succeeded.
    open var characteristics: [CBCharacteristic]? { storedCharacteristics }
}

/// Mirrors CoreBluetooth `CBMutableService`: a local service to publish with `CBPeripheralManager.add(_:)`.
open class CBMutableService: CBService {
    /// `CBMutableService(type:primary:)`.
    public init(type UUID: CBUUID, primary isPrimary: Bool) {
        super.init(uuid: UUID, primary: isPrimary)
    }

    /// `CBMutableService.characteristics`, settable before the service is published.
    open override var characteristics: [CBCharacteristic]? {
        get { storedCharacteristics }
        set { storedCharacteristics = newValue }
    }
}

/// Mirrors CoreBluetooth `CBCharacteristic`: a characteristic of a remote service (its `value` and `isNotifying`
/// set by the system just before the delegate hears about them), or the base of a local `CBMutableCharacteristic`.
open class CBCharacteristic: CBAttribute {
    var storedProperties: CBCharacteristicProperties
    var storedValue: Data?
    var notifying = false

    init(uuid: CBUUID, properties: CBCharacteristicProperties, value: Data?) {
        storedProperties = properties
        storedValue = value
        super.init(uuid: uuid)
    }

    /// `CBCharacteristic.service` (weak, as in CoreBluetooth).
    public internal(set) weak var service: CBService?

    /// `CBCharacteristic.properties`.
    open var properties: CBCharacteristicProperties { storedProperties }

    /// `CBCharacteristic.value`: the last value read or notified.
    open var value: Data? { storedValue }

    /// `CBCharacteristic.isNotifying`.
    public var isNotifying: Bool { notifying }
}

/// Mirrors CoreBluetooth `CBMutableCharacteristic`: a characteristic of a local service.
open class CBMutableCharacteristic: CBCharacteristic {
    var storedPermissions: CBAttributePermissions
    var subscribers: [CBCentral] = []

    /// `CBMutableCharacteristic(type:properties:value:permissions:)`. A non-nil `value` is cached and served by the
    /// system; CoreBluetooth requires such a characteristic to be read-only (`add(_:)` checks it).
    public init(
        type UUID: CBUUID, properties: CBCharacteristicProperties, value: Data?, permissions: CBAttributePermissions
    ) {
        storedPermissions = permissions
        super.init(uuid: UUID, properties: properties, value: value)
    }

    /// `CBMutableCharacteristic.permissions`.
    open var permissions: CBAttributePermissions {
        get { storedPermissions }
        set { storedPermissions = newValue }
    }

    /// `CBMutableCharacteristic.properties`.
    open override var properties: CBCharacteristicProperties {
        get { storedProperties }
        set { storedProperties = newValue }
    }

    /// `CBMutableCharacteristic.value`.
    open override var value: Data? {
        get { storedValue }
        set { storedValue = newValue }
    }

    /// `CBMutableCharacteristic.subscribedCentrals`.
    public var subscribedCentrals: [CBCentral]? { subscribers }
}

/// Mirrors CoreBluetooth `CBPeer`, the base of `CBCentral` and `CBPeripheral`.
open class CBPeer: NSObject {
    /// `CBPeer.identifier`: stable for the device as this app sees it.
    public let identifier: UUID

    init(identifier: UUID) {
        self.identifier = identifier
        super.init()
    }
}

/// Mirrors CoreBluetooth `CBCentral`: a remote central connected to a local peripheral manager.
open class CBCentral: CBPeer {
    let maximumUpdateLength: Int

    init(identifier: UUID, maximumUpdateValueLength: Int) {
        maximumUpdateLength = maximumUpdateValueLength
        super.init(identifier: identifier)
    }

    /// `CBCentral.maximumUpdateValueLength`: the most bytes one notification carries (ATT_MTU − 3).
    public var maximumUpdateValueLength: Int { maximumUpdateLength }
}

/// Mirrors CoreBluetooth `CBATTRequest`: a read or write a remote central made on a local characteristic.
open class CBATTRequest: NSObject {
    /// `CBATTRequest.central`.
    public let central: CBCentral
    /// `CBATTRequest.characteristic`.
    public let characteristic: CBCharacteristic
    /// `CBATTRequest.offset`.
    public let offset: Int
    /// `CBATTRequest.value`: the bytes written, or the value to answer a read with.
    public var value: Data?
    /// Whether this is a Write Command (no ATT response expected); CoreBluetooth keeps this to itself.
    let isCommand: Bool
    let id = UUID()

    init(central: CBCentral, characteristic: CBCharacteristic, offset: Int, value: Data?, isCommand: Bool) {
        self.central = central
        self.characteristic = characteristic
        self.offset = offset
        self.value = value
        self.isCommand = isCommand
        super.init()
    }
}
#endif
