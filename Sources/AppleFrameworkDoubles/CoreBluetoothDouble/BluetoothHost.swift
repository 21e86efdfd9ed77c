#if !canImport(CoreBluetooth)
import Foundation

/// One simulated iPhone's Bluetooth host: the part of iOS behind CoreBluetooth that a test plays. Managers created
/// while a host is `current` (a task-local value, so parallel tests do not meet) belong to it. The host reports
/// its state to them, keeps its GATT database, records every CoreBluetooth call the app makes (`calls`) and every
/// API misuse CoreBluetooth would log (`misuses`), and paces notifications and Write Commands through transmit
/// queues whose size and release a test controls.
///
/// Without a current host, managers join `BluetoothHost.unavailable`, a host whose radio is `.unsupported`: what
/// an app sees on a device without Bluetooth LE.
public final class BluetoothHost: @unchecked Sendable {
    /// The host managers created in this task join.
    @TaskLocal public static var current: BluetoothHost = BluetoothHost.unavailable

    /// The host of a machine without Bluetooth: `.unsupported`, authorization `.notDetermined`.
    public static let unavailable = BluetoothHost(state: .unsupported, authorization: .notDetermined)

    /// The air the host's radio is on: hosts on the same air see each other's advertisements and connect.
    public let air: BluetoothAir
    /// The device identifier other hosts see (`CBPeer.identifier`).
    public let identifier = UUID()
    public let name: String

    // Guarded by the air's lock.
    var stateValue: CBManagerState
    var authorizationValue: CBManagerAuthorization
    var callLog: [CoreBluetoothCall] = []
    var misuseLog: [String] = []
    var reportsState = true
    var mtu = 185
    var notificationCapacity = 8
    var writeCapacity = 8
    var holding = false
    var holdingConnections = false
    var addError: CBError?
    var advertisingError: CBError?

    /// A host on `air` (a new air of its own by default), powered on and authorized unless told otherwise.
    public init(
        air: BluetoothAir = BluetoothAir(), name: String = "iPhone", state: CBManagerState = .poweredOn,
        authorization: CBManagerAuthorization = .allowedAlways
    ) {
        self.air = air
        self.name = name
        self.stateValue = state
        self.authorizationValue = authorization
        air.register(self)
    }

    /// Runs `body` with this host current: the managers it creates join this host.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        try BluetoothHost.$current.withValue(self, operation: body)
    }

    /// Runs `body` with this host current, including in the tasks it starts with `Task { }`.
    public func run<T>(_ body: () async throws -> T) async rethrows -> T {
        try await BluetoothHost.$current.withValue(self, operation: body)
    }

    // MARK: Radio state

    /// The radio's state. Setting it tells every manager of this host (`…DidUpdateState(_:)`, on its queue) and
    /// applies what CoreBluetooth documents for a state below `.poweredOn`: scanning and advertising stop, connected
    /// peripherals and centrals are disconnected (without `didDisconnectPeripheral`, the state update says it), and
    /// below `.poweredOff` the published services are removed.
    public var state: CBManagerState {
        get { air.withLock { stateValue } }
        set { air.setState(self, newValue) }
    }

    /// `CBManager.authorization` for apps on this host.
    public var authorization: CBManagerAuthorization {
        get { air.withLock { authorizationValue } }
        set { air.withLock { authorizationValue = newValue } }
    }

    /// Whether a new manager is told the host's state at once (true), or stays `.unknown` until `state` is set
    /// (false), as when bluetoothd answers late.
    public var reportsStateOnCreation: Bool {
        get { air.withLock { reportsState } }
        set { air.withLock { reportsState = newValue } }
    }

    // MARK: Link parameters

    /// The ATT_MTU this host negotiates; a link uses the smaller of its two ends'.
    public var attMTU: Int {
        get { air.withLock { mtu } }
        set { air.withLock { mtu = newValue } }
    }

    /// How many notifications a peripheral manager of this host may have in its transmit queue before
    /// `updateValue` returns false.
    public var notificationQueueCapacity: Int {
        get { air.withLock { notificationCapacity } }
        set { air.withLock { notificationCapacity = newValue } }
    }

    /// How many Write Commands a connection of this host may have queued before `canSendWriteWithoutResponse`
    /// turns false.
    public var writeWithoutResponseQueueCapacity: Int {
        get { air.withLock { writeCapacity } }
        set { air.withLock { writeCapacity = newValue } }
    }

    /// While true, what this host sends (notifications, Write Commands) stays in its transmit queues until
    /// `releaseTransmissions(_:)`; setting it to false releases everything queued.
    public var holdsTransmissions: Bool {
        get { air.withLock { holding } }
        set { air.setHolding(self, newValue) }
    }

    /// Puts up to `count` (all, if nil) queued PDUs of this host on air, oldest first.
    public func releaseTransmissions(_ count: Int? = nil) { air.release(self, count) }

    /// While true, `connect(_:options:)` calls of this host's central managers stay pending (as for a device
    /// out of range) until `completePendingConnections()`.
    public var holdsConnections: Bool {
        get { air.withLock { holdingConnections } }
        set { air.withLock { holdingConnections = newValue } }
    }

    /// Completes every pending connection of this host's central managers.
    public func completePendingConnections() { air.completePendingConnections(self) }

    // MARK: Scripted failures

    /// The next `add(_:)` on this host fails with this error in `peripheralManager(_:didAdd:error:)`.
    public func failNextAdd(with error: CBError) { air.withLock { addError = error } }

    /// The next `startAdvertising(_:)` on this host fails with this error in
    /// `peripheralManagerDidStartAdvertising(_:error:)`.
    public func failNextAdvertising(with error: CBError) { air.withLock { advertisingError = error } }

    // MARK: What the app did

    /// Every CoreBluetooth call the app made on this host, in order.
    public var recordedCalls: [CoreBluetoothCall] { air.withLock { callLog } }

    /// The calls made since the first `count`.
    public func calls(after count: Int) -> [CoreBluetoothCall] { air.withLock { Array(callLog.dropFirst(count)) } }

    /// What CoreBluetooth would have logged as "API MISUSE" (or refused): commands while not powered on, Write
    /// Commands while `canSendWriteWithoutResponse` is false, values longer than the link carries, answers to
    /// requests never received, cached values on writable characteristics, unknown advertising keys.
    public var misuses: [String] { air.withLock { misuseLog } }
}

/// A CoreBluetooth call the app made, as a host records it (UUIDs as `CBUUID.uuidString`, devices by identifier).
public enum CoreBluetoothCall: Sendable, Hashable, CustomStringConvertible {
    /// A published characteristic as `add(_:)` received it.
    public struct Characteristic: Sendable, Hashable {
        public var uuid: String
        public var properties: CBCharacteristicProperties
        public var permissions: CBAttributePermissions
        public var value: Data?

        public init(uuid: String, properties: CBCharacteristicProperties, permissions: CBAttributePermissions, value: Data? = nil) {
            self.uuid = uuid
            self.properties = properties
            self.permissions = permissions
            self.value = value
        }
    }

    case centralManagerCreated
    case scanForPeripherals(services: [String]?)
    case stopScan
    case connect(peripheral: UUID)
    case cancelPeripheralConnection(peripheral: UUID)
    case retrieveConnectedPeripherals(services: [String], found: [UUID])
    case discoverServices([String]?)
    case discoverCharacteristics([String]?, service: String)
    case readValue(characteristic: String)
    case setNotifyValue(Bool, characteristic: String)
    case writeValue(Data, characteristic: String, type: CBCharacteristicWriteType)
    case peripheralManagerCreated
    case add(service: String, primary: Bool, characteristics: [Characteristic])
    case startAdvertising(serviceUUIDs: [String], localName: String?)
    case stopAdvertising
    case removeAllServices
    case updateValue(Data, characteristic: String, centrals: [UUID]?, accepted: Bool)
    case respond(characteristic: String, result: CBATTError.Code)

    public var description: String {
        switch self {
        case .centralManagerCreated: return "CBCentralManager.init"
        case .scanForPeripherals(let services): return "scanForPeripherals(\(services ?? []))"
        case .stopScan: return "stopScan()"
        case .connect(let id): return "connect(\(id))"
        case .cancelPeripheralConnection(let id): return "cancelPeripheralConnection(\(id))"
        case .retrieveConnectedPeripherals(let services, let found): return "retrieveConnectedPeripherals(\(services)) -> \(found)"
        case .discoverServices(let services): return "discoverServices(\(services.map { "\($0)" } ?? "nil"))"
        case .discoverCharacteristics(let uuids, let service):
            return "discoverCharacteristics(\(uuids.map { "\($0)" } ?? "nil"), for: \(service))"
        case .readValue(let c): return "readValue(for: \(c))"
        case .setNotifyValue(let on, let c): return "setNotifyValue(\(on), for: \(c))"
        case .writeValue(let data, let c, let type): return "writeValue(\(data.count) bytes, for: \(c), type: \(type))"
        case .peripheralManagerCreated: return "CBPeripheralManager.init"
        case .add(let service, _, let cs): return "add(\(service), \(cs.count) characteristics)"
        case .startAdvertising(let uuids, let name): return "startAdvertising(\(uuids), name: \(name ?? "nil"))"
        case .stopAdvertising: return "stopAdvertising()"
        case .removeAllServices: return "removeAllServices()"
        case .updateValue(let data, let c, _, let accepted): return "updateValue(\(data.count) bytes, for: \(c)) -> \(accepted)"
        case .respond(let c, let result): return "respond(to: \(c), withResult: \(result))"
        }
    }
}
#endif
