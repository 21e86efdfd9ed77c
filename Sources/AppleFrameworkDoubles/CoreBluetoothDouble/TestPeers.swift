#if !canImport(CoreBluetooth)
import Foundation

/// A characteristic of a `TestPeripheral`'s GATT database.
public struct TestCharacteristic: Sendable, Hashable {
    public var uuid: UUID
    public var properties: CBCharacteristicProperties
    /// What a Read Request returns (empty when nil).
    public var value: Data?

    public init(uuid: UUID, properties: CBCharacteristicProperties, value: Data? = nil) {
        self.uuid = uuid
        self.properties = properties
        self.value = value
    }
}

/// A primary service of a `TestPeripheral`.
public struct TestService: Sendable, Hashable {
    public var uuid: UUID
    public var characteristics: [TestCharacteristic]

    public init(uuid: UUID, characteristics: [TestCharacteristic]) {
        self.uuid = uuid
        self.characteristics = characteristics
    }
}

/// A remote peripheral a test scripts (any BLE device, not an app on a host): it advertises its services, serves
/// its GATT database to the app's central managers, records what they write and subscribe to, and sends
/// notifications, disconnects or changes its services when the test says so.
public final class TestPeripheral: @unchecked Sendable {
    public let identifier = UUID()
    public let air: BluetoothAir
    public let services: [TestService]
    public let name: String?
    public let attMTU: Int

    /// A write the peripheral received.
    public struct Write: Sendable, Hashable {
        public var characteristic: UUID
        public var value: Data
        public var type: CBCharacteristicWriteType
    }

    // Guarded by the air's lock.
    var advertising = false
    var servicesPublished = true
    var refusing = false
    var subscriptionFailure: CBATTError.Code?
    var writeLog: [Write] = []
    var subscribedTo: [UUID] = []
    var link: Link?

    public init(air: BluetoothAir, services: [TestService], name: String? = nil, attMTU: Int = 185) {
        self.air = air
        self.services = services
        self.name = name
        self.attMTU = attMTU
        air.register(self)
    }

    /// Advertises the service UUIDs; scanning central managers discover it.
    public func startAdvertising() {
        air.withLock {
            advertising = true
            air.advertisingChanged()
        }
    }

    public func stopAdvertising() { air.withLock { advertising = false } }

    /// `connect(_:options:)` to this peripheral fails (`didFailToConnect`).
    public var refusesConnections: Bool {
        get { air.withLock { refusing } }
        set { air.withLock { refusing = newValue } }
    }

    /// Enabling notifications fails with this ATT error.
    public var subscriptionError: CBATTError.Code? {
        get { air.withLock { subscriptionFailure } }
        set { air.withLock { subscriptionFailure = newValue } }
    }

    /// The writes received, in order.
    public var writes: [Write] { air.withLock { writeLog } }

    /// The characteristics the central subscribed to, in order.
    public var subscriptions: [UUID] { air.withLock { subscribedTo } }

    public var isConnected: Bool { air.withLock { link?.up == true } }

    /// Sends a notification to the connected central (dropped by CoreBluetooth unless it subscribed).
    public func notify(_ value: Data, characteristic: UUID) {
        air.withLock {
            guard let link, link.up,
                let service = services.first(where: { $0.characteristics.contains { $0.uuid == characteristic } })
            else { return }
            let key = AttributeKey(service: service.uuid, characteristic: characteristic)
            link.toClient.append(Packet(key: key, value: value, sender: nil))
            air.schedule(link, .toClient)
        }
    }

    /// Drops the connection (supervision timeout or the device going away): the central hears
    /// `didDisconnectPeripheral` with `CBError.peripheralDisconnected`.
    public func disconnect() {
        air.withLock {
            guard let link else { return }
            air.takeDown(link, notifyServer: false, clientError: CBError(.peripheralDisconnected))
        }
    }

    /// Removes every service from the database: a central that discovered them hears `didModifyServices`.
    public func removeServices() {
        air.withLock {
            servicesPublished = false
            guard let link, link.up else { return }
            air.invalidate(Set(services.map { CBUUID(nsuuid: $0.uuid).data }), on: link)
        }
    }

    func connected(_ link: Link) {
        self.link = link
        subscribedTo = []
    }

    func disconnected(_ link: Link) { if self.link === link { self.link = nil } }

    func subscribed(_ characteristic: UUID) { subscribedTo.append(characteristic) }

    func unsubscribed(_ characteristic: UUID) { subscribedTo.removeAll { $0 == characteristic } }

    func received(_ characteristic: UUID, _ value: Data, _ type: CBCharacteristicWriteType) {
        writeLog.append(Write(characteristic: characteristic, value: value, type: type))
    }
}

/// A remote central a test scripts (a reader or a phone that is not an app on a host): it connects to a host's GATT
/// server, subscribes, writes, reads and disconnects when the test says so, and records the notifications and
/// Service Changed indications it receives.
public final class TestCentral: @unchecked Sendable {
    public let identifier = UUID()
    public let air: BluetoothAir
    public let attMTU: Int

    /// A notification the central received.
    public struct Notification: Sendable, Hashable {
        public var characteristic: UUID
        public var value: Data
    }

    // Guarded by the air's lock.
    var link: Link?
    var notificationLog: [Notification] = []
    var invalidatedLog: [Data] = []

    public init(air: BluetoothAir, attMTU: Int = 185) {
        self.air = air
        self.attMTU = attMTU
    }

    /// Connects to `host`'s GATT server (no scan needed); false if the host's radio is not on. A peripheral
    /// manager hears nothing of it: CoreBluetooth reports subscriptions, not connections.
    @discardableResult
    public func connect(to host: BluetoothHost) -> Bool {
        air.withLock {
            guard host.stateValue == .poweredOn, link?.up != true else { return false }
            let link = Link(
                client: .test(self), clientHost: nil, clientManagerID: nil, clientIdentifier: identifier,
                server: .host(host), serverIdentifier: host.identifier, mtu: min(attMTU, host.mtu))
            // The central discovers every service before it uses one.
            for service in air.database(.host(host)) { link.discovered.insert(service.uuid.data) }
            air.links.append(link)
            self.link = link
            return true
        }
    }

    public var isConnected: Bool { air.withLock { link?.up == true } }

    /// Writes the CCCD (notifications on); nil on success, else the ATT error.
    @discardableResult
    public func subscribe(service: UUID, characteristic: UUID) -> CBATTError? {
        setNotify(service: service, characteristic: characteristic, true)
    }

    @discardableResult
    public func unsubscribe(service: UUID, characteristic: UUID) -> CBATTError? {
        setNotify(service: service, characteristic: characteristic, false)
    }

    private func setNotify(service: UUID, characteristic: UUID, _ enabled: Bool) -> CBATTError? {
        air.withLock {
            guard let link, link.up else { return CBATTError(.unlikelyError) }
            return air.clientSetNotify(link, AttributeKey(service: service, characteristic: characteristic), enabled)
        }
    }

    /// A Write Command; it reaches the peripheral manager after those written before it.
    public func write(_ value: Data, service: UUID, characteristic: UUID) {
        air.withLock {
            guard let link, link.up else { return }
            let key = AttributeKey(service: service, characteristic: characteristic)
            link.toServer.append(Packet(key: key, value: value, sender: nil))
            air.schedule(link, .toServer)
        }
    }

    /// A Write Request; the peripheral manager must answer it.
    public func writeWithResponse(_ value: Data, service: UUID, characteristic: UUID) async -> CBATTError? {
        await withCheckedContinuation { continuation in
            air.withLock {
                guard let link, link.up else { return continuation.resume(returning: CBATTError(.unlikelyError)) }
                air.clientWriteRequest(link, AttributeKey(service: service, characteristic: characteristic), value) {
                    continuation.resume(returning: $0)
                }
            }
        }
    }

    /// A Read Request.
    public func read(service: UUID, characteristic: UUID) async -> Result<Data, CBATTError> {
        await withCheckedContinuation { continuation in
            air.withLock {
                guard let link, link.up else { return continuation.resume(returning: .failure(CBATTError(.unlikelyError))) }
                air.clientRead(link, AttributeKey(service: service, characteristic: characteristic)) {
                    continuation.resume(returning: $0)
                }
            }
        }
    }

    /// Disconnects: the peripheral manager hears `didUnsubscribeFrom` for each subscription, in order.
    public func disconnect() {
        air.withLock {
            guard let link else { return }
            air.takeDown(link, notifyClient: false, clientError: nil)
        }
    }

    /// The notifications received, in order.
    public var notifications: [Notification] { air.withLock { notificationLog } }

    /// Services the server removed after this central discovered them.
    public var invalidatedServices: [UUID] {
        air.withLock { invalidatedLog.compactMap { UUID(bytes: $0) } }
    }

    func disconnected(_ link: Link) { if self.link === link { self.link = nil } }

    func notified(_ characteristic: UUID, _ value: Data) {
        notificationLog.append(Notification(characteristic: characteristic, value: value))
    }

    func servicesInvalidated(_ services: Set<Data>) {
        invalidatedLog.append(contentsOf: services.sorted { $0.lexicographicallyPrecedes($1) })
    }
}
#endif
