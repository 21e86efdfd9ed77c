#if !canImport(CoreBluetooth)
import Dispatch
import Foundation

/// The radio space the hosts of a test share: advertisements, connections (links) and the PDUs on them. All state
/// of the double lives behind one lock here; delegate calls are never made under it, they go to each manager's
/// queue (`post`), in the order the lock saw them, which is the order CoreBluetooth documents.
public final class BluetoothAir: @unchecked Sendable {
    let lock = NSRecursiveLock()
    /// Where PDUs go on air, one at a time, oldest first.
    let deliveries = DispatchQueue(label: "CoreBluetoothDouble.air")

    var hosts: [WeakRef<BluetoothHost>] = []
    var centralManagers: [ManagerEntry<CBCentralManager>] = []
    var peripheralManagers: [ManagerEntry<CBPeripheralManager>] = []
    var testPeripherals: [WeakRef<TestPeripheral>] = []
    var links: [Link] = []
    /// Delegate calls and deliveries queued and not run yet (`settle()` waits for none).
    var outstanding = 0

    public init() {}

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Waits until every delegate call and PDU the double queued has run (at most `timeout`). What the adapters
    /// start in their own tasks is not covered: poll for its effect.
    public func settle(timeout: Duration = .seconds(5)) async {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var quietRounds = 0
        while clock.now < deadline {
            let idle = withLock { outstanding == 0 }
            quietRounds = idle ? quietRounds + 1 : 0
            // Two idle looks in a row: a callback that just ran had the chance to queue the next one.
            if quietRounds >= 2 { return }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    // MARK: Dispatch

    /// Runs `work` on `queue` with `object`, unless the app let the object go meanwhile (CoreBluetooth holds
    /// delegates and managers weakly too).
    func post<Object: AnyObject>(_ queue: DispatchQueue, _ object: Object, _ work: @escaping (Object) -> Void) {
        withLock { outstanding += 1 }
        let box = Unchecked((WeakRef(object), work))
        queue.async { [self] in
            if let object = box.value.0.value { box.value.1(object) }
            withLock { outstanding -= 1 }
        }
    }

    func record(_ host: BluetoothHost, _ call: CoreBluetoothCall) { host.callLog.append(call) }

    func misuse(_ host: BluetoothHost, _ text: String) { host.misuseLog.append(text) }

    // MARK: Registration

    func register(_ host: BluetoothHost) { withLock { hosts.append(WeakRef(host)) } }

    func register(_ manager: CBCentralManager) {
        withLock {
            centralManagers.append(ManagerEntry(manager))
            record(manager.host, .centralManagerCreated)
            if manager.host.reportsState { manager.reportState(manager.host.stateValue) }
        }
    }

    func register(_ manager: CBPeripheralManager) {
        withLock {
            peripheralManagers.append(ManagerEntry(manager))
            record(manager.host, .peripheralManagerCreated)
            if manager.host.reportsState { manager.reportState(manager.host.stateValue) }
        }
    }

    func register(_ peripheral: TestPeripheral) { withLock { testPeripherals.append(WeakRef(peripheral)) } }

    /// A central manager was released: its connections end as if cancelled. What it had already handed to the
    /// system still goes out first (the system owns those queues), then the peripherals see their subscriptions go.
    func managerGone(central manager: CBCentralManager) {
        let id = ObjectIdentifier(manager)
        withLock {
            centralManagers.removeAll { $0.id == id }
            for link in links where link.clientManagerID == id && !link.clientDetached {
                link.clientDetached = true
                scheduleAfterQueued(link) { [self] in takeDown(link, notifyClient: false, clientError: nil) }
            }
        }
    }

    /// A peripheral manager was released: its services leave the host's database and it stops advertising.
    func managerGone(peripheralManager manager: CBPeripheralManager) {
        let id = ObjectIdentifier(manager)
        withLock {
            peripheralManagers.removeAll { $0.id == id }
            invalidate(services: manager.published, of: manager.host)
        }
    }

    var liveHosts: [BluetoothHost] { hosts.compactMap(\.value) }

    func peripheralManagers(of host: BluetoothHost) -> [CBPeripheralManager] {
        peripheralManagers.compactMap(\.value).filter { $0.host === host }
    }

    func centralManagers(of host: BluetoothHost) -> [CBCentralManager] {
        centralManagers.compactMap(\.value).filter { $0.host === host }
    }

    // MARK: Radio state

    func setState(_ host: BluetoothHost, _ state: CBManagerState) {
        withLock {
            host.stateValue = state
            for manager in centralManagers(of: host) { manager.reportState(state) }
            for manager in peripheralManagers(of: host) { manager.reportState(state) }
            guard state != .poweredOn else { return }
            for manager in centralManagers(of: host) {
                manager.scan = nil
                manager.pendingConnections = []
            }
            for link in links where link.clientHost === host {
                takeDown(link, notifyClient: false, clientError: nil)
            }
            for manager in peripheralManagers(of: host) {
                manager.advertisement = nil
            }
            for link in links where link.serverHost === host {
                takeDown(link, notifyServer: false, clientError: CBError(.peripheralDisconnected))
            }
            if state.rawValue < CBManagerState.poweredOff.rawValue {
                for manager in peripheralManagers(of: host) {
                    manager.published = []
                }
            }
        }
    }

    // MARK: Transmission pacing

    func setHolding(_ host: BluetoothHost, _ holding: Bool) {
        withLock {
            host.holding = holding
            if !holding { release(host, nil) }
        }
    }

    func release(_ host: BluetoothHost, _ count: Int?) {
        withLock {
            var budget = count ?? Int.max
            for link in links where budget > 0 {
                if link.clientHost === host {
                    let n = min(budget, link.unscheduledToServer)
                    link.unscheduledToServer -= n
                    budget -= n
                    for _ in 0..<n { schedule(link, .toServer) }
                }
                if link.serverHost === host {
                    let n = min(budget, link.unscheduledToClient)
                    link.unscheduledToClient -= n
                    budget -= n
                    for _ in 0..<n { schedule(link, .toClient) }
                }
            }
        }
    }

    enum Direction { case toServer, toClient }

    func schedule(_ link: Link, _ direction: Direction) {
        outstanding += 1
        let box = Unchecked(link)
        deliveries.async { [self] in
            withLock {
                deliverNext(box.value, direction)
                outstanding -= 1
            }
        }
    }

    /// Runs `work` on the air after every PDU already queued on `link` (held ones included): what travels on the
    /// link after those PDUs, like a Service Changed indication or the end of a connection the app cancelled.
    func scheduleAfterQueued(_ link: Link, _ work: @escaping () -> Void) {
        for _ in 0..<link.unscheduledToServer { schedule(link, .toServer) }
        for _ in 0..<link.unscheduledToClient { schedule(link, .toClient) }
        link.unscheduledToServer = 0
        link.unscheduledToClient = 0
        outstanding += 1
        let box = Unchecked(work)
        deliveries.async { [self] in
            withLock {
                box.value()
                outstanding -= 1
            }
        }
    }

    /// Puts the oldest queued PDU of `link` in `direction` on air.
    func deliverNext(_ link: Link, _ direction: Direction) {
        guard link.up else { return }
        switch direction {
        case .toServer:
            guard !link.toServer.isEmpty else { return }
            let packet = link.toServer.removeFirst()
            deliverToServer(link, key: packet.key, value: packet.value, isCommand: true)
            if link.owesWriteReady, link.toServer.isEmpty, !link.clientDetached, case .app(_, let peripheral) = link.client {
                // "Flushing all current writes sets the value to true. This also results in a call to
                // peripheralIsReady(toSendWriteWithoutResponse:)."
                link.owesWriteReady = false
                postPeripheral(peripheral) { $0.delegate?.peripheralIsReady(toSendWriteWithoutResponse: $0) }
            }
        case .toClient:
            guard !link.toClient.isEmpty else { return }
            let packet = link.toClient.removeFirst()
            deliverToClient(link, key: packet.key, value: packet.value)
            if let manager = packet.sender { transmitted(manager, count: 1) }
        }
    }

    /// A peripheral manager's notification left its transmit queue: if an `updateValue` was refused,
    /// `peripheralManagerIsReady(toUpdateSubscribers:)` is owed now that there is room.
    func transmitted(_ manager: CBPeripheralManager, count: Int) {
        manager.queuedUpdates = max(0, manager.queuedUpdates - count)
        if manager.owesReady {
            manager.owesReady = false
            post(manager.queue, manager) { $0.delegate?.peripheralManagerIsReady(toUpdateSubscribers: $0) }
        }
    }

    func postPeripheral(_ peripheral: CBPeripheral, _ work: @escaping (CBPeripheral) -> Void) {
        guard let manager = peripheral.manager else { return }
        post(manager.queue, peripheral, work)
    }

    // MARK: GATT database

    /// One characteristic of a server's GATT database.
    struct ServerAttribute {
        var key: AttributeKey
        var properties: CBCharacteristicProperties
        var permissions: CBAttributePermissions
        var value: Data?
        /// The local characteristic and its manager, when the server is a host.
        var owner: CBPeripheralManager?
        var object: CBMutableCharacteristic?
    }

    struct ServerService {
        var uuid: CBUUID
        var primary: Bool
        var characteristics: [ServerAttribute]
    }

    func database(_ server: Link.Server) -> [ServerService] {
        switch server {
        case .host(let host):
            var services: [ServerService] = []
            for manager in peripheralManagers(of: host) {
                for service in manager.published {
                    let characteristics = (service.characteristics ?? []).compactMap { $0 as? CBMutableCharacteristic }
                    services.append(ServerService(
                        uuid: service.uuid, primary: service.isPrimary,
                        characteristics: characteristics.map { c in
                            ServerAttribute(
                                key: AttributeKey(service: service.uuid, characteristic: c.uuid), properties: c.properties,
                                permissions: c.permissions, value: c.value, owner: manager, object: c)
                        }))
                }
            }
            return services
        case .test(let peripheral):
            guard peripheral.servicesPublished else { return [] }
            return peripheral.services.map { service in
                ServerService(
                    uuid: CBUUID(nsuuid: service.uuid), primary: true,
                    characteristics: service.characteristics.map { c in
                        ServerAttribute(
                            key: AttributeKey(service: service.uuid, characteristic: c.uuid), properties: c.properties,
                            permissions: [.readable, .writeable], value: c.value)
                    })
            }
        }
    }

    func attribute(_ server: Link.Server, _ key: AttributeKey) -> ServerAttribute? {
        database(server).lazy.flatMap(\.characteristics).first { $0.key == key }
    }

    // MARK: Advertising and scanning

    /// A device advertising on the air, as a scanning central sees it.
    struct Advertiser {
        var identifier: UUID
        var services: [CBUUID]
        var name: String?
        var host: BluetoothHost?
        var peripheral: TestPeripheral?
    }

    var advertisers: [Advertiser] {
        var found: [Advertiser] = []
        for host in liveHosts where host.stateValue == .poweredOn {
            let advertising = peripheralManagers(of: host).compactMap(\.advertisement)
            guard !advertising.isEmpty else { continue }
            found.append(Advertiser(
                identifier: host.identifier, services: advertising.flatMap(\.services),
                name: advertising.compactMap(\.name).first, host: host))
        }
        for peripheral in testPeripherals.compactMap(\.value) where peripheral.advertising {
            found.append(Advertiser(
                identifier: peripheral.identifier, services: peripheral.services.map { CBUUID(nsuuid: $0.uuid) },
                name: peripheral.name, peripheral: peripheral))
        }
        return found
    }

    func scan(_ manager: CBCentralManager, services: [CBUUID]?) {
        withLock {
            record(manager.host, .scanForPeripherals(services: services?.map(\.uuidString)))
            guard manager.requirePoweredOn("scanForPeripherals(withServices:options:)") else { return }
            manager.scan = (services, [])
            reportAdvertisers(to: manager)
        }
    }

    /// Reports each advertiser the manager's scan matches and has not reported yet (no duplicates, as without
    /// `CBCentralManagerScanOptionAllowDuplicatesKey`).
    func reportAdvertisers(to manager: CBCentralManager) {
        guard var scan = manager.scan else { return }
        for advertiser in advertisers where advertiser.host !== manager.host && !scan.reported.contains(advertiser.identifier) {
            if let wanted = scan.services, !advertiser.services.contains(where: { wanted.contains($0) }) { continue }
            scan.reported.insert(advertiser.identifier)
            let peripheral = peripheralObject(manager, advertiser.identifier, name: advertiser.name)
            var data: [String: Any] = [
                CBAdvertisementDataServiceUUIDsKey: advertiser.services,
                CBAdvertisementDataIsConnectable: NSNumber(value: true),
            ]
            if let name = advertiser.name { data[CBAdvertisementDataLocalNameKey] = name }
            let advertisement = Unchecked(data)
            post(manager.queue, manager) { manager in
                manager.delegate?.centralManager(
                    manager, didDiscover: peripheral, advertisementData: advertisement.value, rssi: NSNumber(value: -55))
            }
        }
        manager.scan = scan
    }

    func advertisingChanged() {
        for manager in centralManagers.compactMap(\.value) { reportAdvertisers(to: manager) }
    }

    func peripheralObject(_ manager: CBCentralManager, _ identifier: UUID, name: String?) -> CBPeripheral {
        if let known = manager.peripherals[identifier] { return known }
        let peripheral = CBPeripheral(identifier: identifier, manager: manager, name: name)
        manager.peripherals[identifier] = peripheral
        return peripheral
    }

    func stopScan(_ manager: CBCentralManager) {
        withLock {
            record(manager.host, .stopScan)
            guard manager.requirePoweredOn("stopScan()") else { return }
            manager.scan = nil
        }
    }

    // MARK: Connections

    func server(for identifier: UUID) -> Link.Server? {
        if let host = liveHosts.first(where: { $0.identifier == identifier }) { return .host(host) }
        if let peripheral = testPeripherals.compactMap(\.value).first(where: { $0.identifier == identifier }) {
            return .test(peripheral)
        }
        return nil
    }

    func link(_ peripheral: CBPeripheral) -> Link? {
        guard let manager = peripheral.manager else { return nil }
        let id = ObjectIdentifier(manager)
        return links.first {
            $0.up && !$0.clientDetached && $0.clientManagerID == id && $0.serverIdentifier == peripheral.identifier
        }
    }

    func connect(_ manager: CBCentralManager, _ peripheral: CBPeripheral) {
        withLock {
            record(manager.host, .connect(peripheral: peripheral.identifier))
            guard manager.requirePoweredOn("connect(_:options:)") else { return }
            guard link(peripheral) == nil, !manager.pendingConnections.contains(peripheral.identifier) else { return }
            manager.pendingConnections.insert(peripheral.identifier)
            if !manager.host.holdingConnections { establish(manager, peripheral) }
        }
    }

    func completePendingConnections(_ host: BluetoothHost) {
        withLock {
            for manager in centralManagers(of: host) {
                for identifier in manager.pendingConnections {
                    if let peripheral = manager.peripherals[identifier] { establish(manager, peripheral) }
                }
            }
        }
    }

    /// Connects a pending connection if the device is there; otherwise it stays pending, as CoreBluetooth's
    /// connection attempts do not time out.
    func establish(_ manager: CBCentralManager, _ peripheral: CBPeripheral) {
        guard manager.pendingConnections.contains(peripheral.identifier), let server = server(for: peripheral.identifier)
        else { return }
        let serverMTU: Int
        switch server {
        case .host(let host):
            guard host.stateValue == .poweredOn else { return }
            serverMTU = host.mtu
        case .test(let test):
            if test.refusesConnections {
                manager.pendingConnections.remove(peripheral.identifier)
                post(manager.queue, manager) { manager in
                    manager.delegate?.centralManager(manager, didFailToConnect: peripheral, error: CBError(.connectionFailed))
                }
                return
            }
            serverMTU = test.attMTU
        }
        manager.pendingConnections.remove(peripheral.identifier)
        let link = Link(
            client: .app(WeakRef(manager), peripheral), clientHost: manager.host, clientManagerID: ObjectIdentifier(manager),
            clientIdentifier: manager.host.identifier, server: server, serverIdentifier: peripheral.identifier,
            mtu: min(manager.host.mtu, serverMTU))
        links.append(link)
        if case .test(let test) = server { test.connected(link) }
        post(manager.queue, manager) { manager in manager.delegate?.centralManager(manager, didConnect: peripheral) }
    }

    func cancelConnection(_ manager: CBCentralManager, _ peripheral: CBPeripheral) {
        withLock {
            record(manager.host, .cancelPeripheralConnection(peripheral: peripheral.identifier))
            guard manager.requirePoweredOn("cancelPeripheralConnection(_:)") else { return }
            if manager.pendingConnections.remove(peripheral.identifier) != nil {
                post(manager.queue, manager) { manager in
                    manager.delegate?.centralManager(manager, didDisconnectPeripheral: peripheral, error: nil)
                }
            } else if let link = link(peripheral) {
                // "Canceling a local connection doesn't guarantee that the underlying physical link is immediately
                // disconnected": the app is done with it at once, the peripheral sees what was already queued,
                // then the central go.
                link.clientDetached = true
                post(manager.queue, manager) { manager in
                    manager.delegate?.centralManager(manager, didDisconnectPeripheral: peripheral, error: nil)
                }
                scheduleAfterQueued(link) { [self] in takeDown(link, notifyClient: false, clientError: nil) }
            }
        }
    }

    func retrieveConnected(_ manager: CBCentralManager, services: [CBUUID]) -> [CBPeripheral] {
        withLock {
            var found: [CBPeripheral] = []
            if manager.reportedState == .poweredOn {
                let id = ObjectIdentifier(manager)
                for link in links where link.up && !link.clientDetached && link.clientManagerID == id {
                    guard case .app(_, let peripheral) = link.client else { continue }
                    if database(link.server).contains(where: { services.contains($0.uuid) }) { found.append(peripheral) }
                }
            }
            record(manager.host, .retrieveConnectedPeripherals(
                services: services.map(\.uuidString), found: found.map(\.identifier)))
            _ = manager.requirePoweredOn("retrieveConnectedPeripherals(withServices:)")
            return found
        }
    }

    /// Ends a link. The server side hears the central go (a peripheral manager: `didUnsubscribeFrom` for each
    /// subscription, as iOS reports a central's disconnection); the client hears `didDisconnectPeripheral` with
    /// `clientError` (nil when the app cancelled the connection).
    func takeDown(_ link: Link, notifyServer: Bool = true, notifyClient: Bool = true, clientError: CBError?) {
        guard link.up else { return }
        link.up = false
        links.removeAll { $0 === link }
        let subscriptions = link.subscriptions
        link.subscriptions = []
        let inFlight = link.toClient
        link.toClient = []
        link.toServer = []
        for packet in inFlight { if let manager = packet.sender { transmitted(manager, count: 1) } }
        switch link.server {
        case .host:
            for manager in peripheralManagers.compactMap(\.value) {
                manager.pendingRequests = manager.pendingRequests.filter { $0.value.link !== link }
            }
            if notifyServer {
                for key in subscriptions { unsubscribe(link, key) }
            }
        case .test(let peripheral):
            peripheral.disconnected(link)
        }
        guard notifyClient else { return }
        switch link.client {
        case .app(let manager, let peripheral):
            guard let manager = manager.value else { return }
            let error = clientError.map { Unchecked<any Error>($0) }
            post(manager.queue, manager) { manager in
                manager.delegate?.centralManager(manager, didDisconnectPeripheral: peripheral, error: error?.value)
            }
        case .test(let central):
            central.disconnected(link)
        }
    }

    // MARK: Discovery

    func discoverServices(_ peripheral: CBPeripheral, _ uuids: [CBUUID]?) {
        withLock {
            guard let host = peripheral.manager?.host else { return }
            record(host, .discoverServices(uuids?.map(\.uuidString)))
            guard let link = link(peripheral) else {
                misuse(host, "discoverServices(_:) on a peripheral that is not connected")
                return
            }
            let found = database(link.server).filter { uuids == nil || uuids?.contains($0.uuid) == true }
            let known = peripheral.discoveredServices ?? []
            let services = found.map { service -> CBService in
                if let existing = known.first(where: { $0.uuid == service.uuid }) { return existing }
                let object = CBService(uuid: service.uuid, primary: service.primary)
                object.peripheral = peripheral
                return object
            }
            for service in found { link.discovered.insert(service.uuid.data) }
            let result = Unchecked(services)
            postPeripheral(peripheral) { [self] peripheral in
                withLock { peripheral.discoveredServices = result.value }
                peripheral.delegate?.peripheral(peripheral, didDiscoverServices: nil)
            }
        }
    }

    func discoverCharacteristics(_ peripheral: CBPeripheral, _ uuids: [CBUUID]?, _ service: CBService) {
        withLock {
            guard let host = peripheral.manager?.host else { return }
            record(host, .discoverCharacteristics(uuids?.map(\.uuidString), service: service.uuid.uuidString))
            guard let link = link(peripheral) else {
                misuse(host, "discoverCharacteristics(_:for:) on a peripheral that is not connected")
                return
            }
            guard let entry = database(link.server).first(where: { $0.uuid == service.uuid }) else {
                let error = Unchecked<any Error>(CBATTError(.attributeNotFound))
                postPeripheral(peripheral) {
                    $0.delegate?.peripheral($0, didDiscoverCharacteristicsFor: service, error: error.value)
                }
                return
            }
            let known = service.storedCharacteristics ?? []
            let characteristics = entry.characteristics
                .filter { uuids == nil || uuids?.contains($0.key.characteristicUUID) == true }
                .map { attribute -> CBCharacteristic in
                    if let existing = known.first(where: { $0.uuid == attribute.key.characteristicUUID }) { return existing }
                    let object = CBCharacteristic(
                        uuid: attribute.key.characteristicUUID, properties: attribute.properties, value: nil)
                    object.service = service
                    return object
                }
            let result = Unchecked(characteristics)
            postPeripheral(peripheral) { [self] peripheral in
                withLock { service.storedCharacteristics = result.value }
                peripheral.delegate?.peripheral(peripheral, didDiscoverCharacteristicsFor: service, error: nil)
            }
        }
    }

    // MARK: Reads, subscriptions, writes (central side)

    func key(_ characteristic: CBCharacteristic) -> AttributeKey? {
        guard let service = characteristic.service else { return nil }
        return AttributeKey(service: service.uuid, characteristic: characteristic.uuid)
    }

    /// The local `CBCentral` object a peripheral manager sees for the link's client.
    func centralObject(_ manager: CBPeripheralManager, _ link: Link) -> CBCentral {
        if let known = manager.centrals[link.clientIdentifier], known.maximumUpdateLength == link.mtu - 3 { return known }
        let central = CBCentral(identifier: link.clientIdentifier, maximumUpdateValueLength: link.mtu - 3)
        manager.centrals[link.clientIdentifier] = central
        return central
    }

    func read(_ peripheral: CBPeripheral, _ characteristic: CBCharacteristic) {
        withLock {
            guard let host = peripheral.manager?.host else { return }
            record(host, .readValue(characteristic: characteristic.uuid.uuidString))
            guard let link = link(peripheral), let key = key(characteristic) else {
                misuse(host, "readValue(for:) on a peripheral that is not connected")
                return
            }
            clientRead(link, key) { [self] result in
                let value = Unchecked(result)
                postPeripheral(peripheral) { [self] peripheral in
                    switch value.value {
                    case .success(let data):
                        withLock { characteristic.storedValue = data }
                        peripheral.delegate?.peripheral(peripheral, didUpdateValueFor: characteristic, error: nil)
                    case .failure(let error):
                        peripheral.delegate?.peripheral(peripheral, didUpdateValueFor: characteristic, error: error)
                    }
                }
            }
        }
    }

    /// A Read Request from the link's client. A cached value is answered by the system; a dynamic one goes to the
    /// owning peripheral manager as `didReceiveRead`, which must `respond(to:withResult:)`.
    func clientRead(_ link: Link, _ key: AttributeKey, answer: @escaping (Result<Data, CBATTError>) -> Void) {
        guard let attribute = attribute(link.server, key) else { return answer(.failure(CBATTError(.attributeNotFound))) }
        guard attribute.properties.contains(.read), attribute.permissions.contains(.readable) else {
            return answer(.failure(CBATTError(.readNotPermitted)))
        }
        if let value = attribute.value { return answer(.success(value)) }
        guard let manager = attribute.owner, let object = attribute.object else { return answer(.success(Data())) }
        let request = CBATTRequest(
            central: centralObject(manager, link), characteristic: object, offset: 0, value: nil, isCommand: false)
        manager.pendingRequests[request.id] = PendingRequest(link: link, request: request, answer: answer)
        post(manager.queue, manager) { $0.delegate?.peripheralManager($0, didReceiveRead: request) }
    }

    func setNotify(_ peripheral: CBPeripheral, _ enabled: Bool, _ characteristic: CBCharacteristic) {
        withLock {
            guard let host = peripheral.manager?.host else { return }
            record(host, .setNotifyValue(enabled, characteristic: characteristic.uuid.uuidString))
            guard let link = link(peripheral), let key = key(characteristic) else {
                misuse(host, "setNotifyValue(_:for:) on a peripheral that is not connected")
                return
            }
            let error = clientSetNotify(link, key, enabled).map { Unchecked<any Error>($0) }
            postPeripheral(peripheral) { [self] peripheral in
                if error == nil { withLock { characteristic.notifying = enabled } }
                peripheral.delegate?.peripheral(peripheral, didUpdateNotificationStateFor: characteristic, error: error?.value)
            }
        }
    }

    /// Writes the CCCD for the link's client; nil on success. The server hears it first (`didSubscribeTo` /
    /// `didUnsubscribeFrom`), the client after (the Write Response).
    func clientSetNotify(_ link: Link, _ key: AttributeKey, _ enabled: Bool) -> CBATTError? {
        guard let attribute = attribute(link.server, key) else { return CBATTError(.attributeNotFound) }
        guard !attribute.properties.isDisjoint(with: [.notify, .indicate]) else { return CBATTError(.requestNotSupported) }
        if case .test(let peripheral) = link.server, let code = peripheral.subscriptionError { return CBATTError(code) }
        if enabled {
            guard !link.subscriptions.contains(key) else { return nil }
            link.subscriptions.append(key)
            switch link.server {
            case .host:
                if let manager = attribute.owner, let object = attribute.object {
                    let central = centralObject(manager, link)
                    object.subscribers.append(central)
                    post(manager.queue, manager) { $0.delegate?.peripheralManager($0, central: central, didSubscribeTo: object) }
                }
            case .test(let peripheral):
                peripheral.subscribed(key.characteristicID)
            }
        } else {
            guard link.subscriptions.contains(key) else { return nil }
            unsubscribe(link, key)
        }
        return nil
    }

    func unsubscribe(_ link: Link, _ key: AttributeKey) {
        link.subscriptions.removeAll { $0 == key }
        switch link.server {
        case .host:
            guard let attribute = attribute(link.server, key), let manager = attribute.owner, let object = attribute.object
            else { return }
            let central = centralObject(manager, link)
            object.subscribers.removeAll { $0.identifier == central.identifier }
            post(manager.queue, manager) { $0.delegate?.peripheralManager($0, central: central, didUnsubscribeFrom: object) }
        case .test(let peripheral):
            peripheral.unsubscribed(key.characteristicID)
        }
    }

    func write(_ peripheral: CBPeripheral, _ data: Data, _ characteristic: CBCharacteristic, _ type: CBCharacteristicWriteType) {
        withLock {
            guard let host = peripheral.manager?.host else { return }
            record(host, .writeValue(data, characteristic: characteristic.uuid.uuidString, type: type))
            guard let link = link(peripheral), let key = key(characteristic), let attribute = attribute(link.server, key) else {
                misuse(host, "writeValue(_:for:type:) on a peripheral that is not connected")
                return
            }
            switch type {
            case .withoutResponse:
                guard attribute.properties.contains(.writeWithoutResponse) else {
                    misuse(host, "Write Command to \(characteristic.uuid) which lacks .writeWithoutResponse (dropped)")
                    return
                }
                guard data.count <= link.mtu - 3 else {
                    misuse(host, "Write Command of \(data.count) bytes, more than maximumWriteValueLength(for: "
                        + ".withoutResponse) = \(link.mtu - 3) (dropped)")
                    return
                }
                guard link.toServer.count < host.writeCapacity else {
                    misuse(host, "Write Command while canSendWriteWithoutResponse is false (dropped)")
                    return
                }
                link.toServer.append(Packet(key: key, value: data, sender: nil))
                if link.toServer.count >= host.writeCapacity { link.owesWriteReady = true }
                if host.holding { link.unscheduledToServer += 1 } else { schedule(link, .toServer) }
            case .withResponse:
                clientWriteRequest(link, key, data) { [self] error in
                    let failure = error.map { Unchecked<any Error>($0) }
                    postPeripheral(peripheral) {
                        $0.delegate?.peripheral($0, didWriteValueFor: characteristic, error: failure?.value)
                    }
                }
            }
        }
    }

    /// A Write Request from the link's client: the owning peripheral manager hears `didReceiveWrite` and must
    /// `respond(to:withResult:)`; the client then hears the result.
    func clientWriteRequest(_ link: Link, _ key: AttributeKey, _ data: Data, answer: @escaping (CBATTError?) -> Void) {
        guard let attribute = attribute(link.server, key) else { return answer(CBATTError(.attributeNotFound)) }
        guard attribute.properties.contains(.write), attribute.permissions.contains(.writeable) else {
            return answer(CBATTError(.writeNotPermitted))
        }
        switch link.server {
        case .host:
            guard let manager = attribute.owner, let object = attribute.object else { return answer(nil) }
            let request = CBATTRequest(
                central: centralObject(manager, link), characteristic: object, offset: 0, value: data, isCommand: false)
            manager.pendingRequests[request.id] = PendingRequest(link: link, request: request) { result in
                switch result {
                case .success: answer(nil)
                case .failure(let error): answer(error)
                }
            }
            post(manager.queue, manager) { $0.delegate?.peripheralManager($0, didReceiveWrite: [request]) }
        case .test(let peripheral):
            peripheral.received(key.characteristicID, data, .withResponse)
            answer(nil)
        }
    }

    /// A Write Command reached the server. Commands to a characteristic without `.writeable` permission are
    /// dropped by the ATT layer: there is no response to carry an error.
    func deliverToServer(_ link: Link, key: AttributeKey, value: Data, isCommand: Bool) {
        guard let attribute = attribute(link.server, key) else { return }
        switch link.server {
        case .host:
            guard attribute.permissions.contains(.writeable), let manager = attribute.owner, let object = attribute.object
            else { return }
            let request = CBATTRequest(
                central: centralObject(manager, link), characteristic: object, offset: 0, value: value, isCommand: isCommand)
            post(manager.queue, manager) { $0.delegate?.peripheralManager($0, didReceiveWrite: [request]) }
        case .test(let peripheral):
            peripheral.received(key.characteristicID, value, .withoutResponse)
        }
    }

    /// A notification reached the client: CoreBluetooth sets `value`, then calls `didUpdateValueFor`. Notifications
    /// for a characteristic the app did not discover and subscribe to are dropped.
    func deliverToClient(_ link: Link, key: AttributeKey, value: Data) {
        switch link.client {
        case .app(_, let peripheral):
            guard !link.clientDetached else { return }
            let service = peripheral.discoveredServices?.first { $0.uuid.data == key.service }
            guard let characteristic = service?.storedCharacteristics?.first(where: { $0.uuid.data == key.characteristic }),
                characteristic.notifying
            else { return }
            postPeripheral(peripheral) { [self] peripheral in
                withLock { characteristic.storedValue = value }
                peripheral.delegate?.peripheral(peripheral, didUpdateValueFor: characteristic, error: nil)
            }
        case .test(let central):
            central.notified(key.characteristicID, value)
        }
    }

    func canSendWriteWithoutResponse(_ peripheral: CBPeripheral) -> Bool {
        withLock {
            guard let link = link(peripheral), let host = link.clientHost else { return false }
            return link.toServer.count < host.writeCapacity
        }
    }

    func maximumWriteValueLength(_ peripheral: CBPeripheral, _ type: CBCharacteristicWriteType) -> Int {
        withLock {
            switch type {
            case .withResponse: return 512
            case .withoutResponse: return (link(peripheral)?.mtu ?? 23) - 3
            }
        }
    }

    // MARK: Peripheral manager

    func add(_ manager: CBPeripheralManager, _ service: CBMutableService) {
        withLock {
            let characteristics = (service.characteristics ?? []).compactMap { $0 as? CBMutableCharacteristic }
            record(manager.host, .add(
                service: service.uuid.uuidString, primary: service.isPrimary,
                characteristics: characteristics.map {
                    CoreBluetoothCall.Characteristic(
                        uuid: $0.uuid.uuidString, properties: $0.properties, permissions: $0.permissions, value: $0.value)
                }))
            guard manager.requirePoweredOn("add(_:)") else { return }
            for c in characteristics where c.value != nil && !c.properties.isSubset(of: [.read]) {
                // CoreBluetooth raises "Characteristics with cached values must be read-only".
                misuse(manager.host, "characteristic \(c.uuid) has a cached value but is not read-only")
                let error = Unchecked<any Error>(CBError(.invalidParameters))
                post(manager.queue, manager) { $0.delegate?.peripheralManager($0, didAdd: service, error: error.value) }
                return
            }
            if let failure = manager.host.addError {
                manager.host.addError = nil
                let error = Unchecked<any Error>(failure)
                post(manager.queue, manager) { $0.delegate?.peripheralManager($0, didAdd: service, error: error.value) }
                return
            }
            for c in characteristics { c.service = service }
            manager.published.append(service)
            post(manager.queue, manager) { $0.delegate?.peripheralManager($0, didAdd: service, error: nil) }
        }
    }

    func removeAllServices(_ manager: CBPeripheralManager) {
        withLock {
            record(manager.host, .removeAllServices)
            guard manager.requirePoweredOn("removeAllServices()") else { return }
            let removed = manager.published
            manager.published = []
            invalidate(services: removed, of: manager.host)
        }
    }

    /// Services left the server's GATT database: subscriptions to them end without a callback to the server, and
    /// a client that discovered them hears `peripheral(_:didModifyServices:)` (the Service Changed indication,
    /// which travels after the PDUs already queued on the link).
    func invalidate(services removed: [CBMutableService], of host: BluetoothHost) {
        let gone = Set(removed.map(\.uuid.data))
        for link in links where link.serverHost === host { invalidate(gone, on: link) }
    }

    func invalidate(_ gone: Set<Data>, on link: Link) {
        guard !gone.isEmpty else { return }
        link.subscriptions.removeAll { gone.contains($0.service) }
        let invalidated = link.discovered.intersection(gone)
        guard !invalidated.isEmpty else { return }
        link.discovered.subtract(invalidated)
        scheduleAfterQueued(link) { [self] in
            guard link.up else { return }
            switch link.client {
            case .app(_, let peripheral):
                guard !link.clientDetached else { return }
                let objects = (peripheral.discoveredServices ?? []).filter { invalidated.contains($0.uuid.data) }
                let result = Unchecked(objects)
                postPeripheral(peripheral) { [self] peripheral in
                    withLock { peripheral.discoveredServices?.removeAll { invalidated.contains($0.uuid.data) } }
                    peripheral.delegate?.peripheral(peripheral, didModifyServices: result.value)
                }
            case .test(let central):
                central.servicesInvalidated(invalidated)
            }
        }
    }

    func startAdvertising(_ manager: CBPeripheralManager, _ data: [String: Any]?) {
        withLock {
            let services = (data?[CBAdvertisementDataServiceUUIDsKey] as? [CBUUID]) ?? []
            let name = data?[CBAdvertisementDataLocalNameKey] as? String
            record(manager.host, .startAdvertising(serviceUUIDs: services.map(\.uuidString), localName: name))
            guard manager.requirePoweredOn("startAdvertising(_:)") else { return }
            let accepted = [CBAdvertisementDataServiceUUIDsKey, CBAdvertisementDataLocalNameKey]
            let unsupported = (data ?? [:]).keys.filter { !accepted.contains($0) }
            if !unsupported.isEmpty {
                misuse(manager.host, "startAdvertising(_:) with keys CoreBluetooth ignores: \(unsupported.sorted())")
            }
            let failure: CBError?
            if manager.advertisement != nil {
                failure = CBError(.alreadyAdvertising)
            } else if let scripted = manager.host.advertisingError {
                manager.host.advertisingError = nil
                failure = scripted
            } else {
                failure = nil
            }
            if let failure {
                let error = Unchecked<any Error>(failure)
                post(manager.queue, manager) { $0.delegate?.peripheralManagerDidStartAdvertising($0, error: error.value) }
                return
            }
            manager.advertisement = (services, name)
            post(manager.queue, manager) { $0.delegate?.peripheralManagerDidStartAdvertising($0, error: nil) }
            advertisingChanged()
        }
    }

    func stopAdvertising(_ manager: CBPeripheralManager) {
        withLock {
            record(manager.host, .stopAdvertising)
            guard manager.requirePoweredOn("stopAdvertising()") else { return }
            manager.advertisement = nil
        }
    }

    func updateValue(
        _ manager: CBPeripheralManager, _ value: Data, _ characteristic: CBMutableCharacteristic, _ centrals: [CBCentral]?
    ) -> Bool {
        withLock {
            let host = manager.host
            let ids = centrals?.map(\.identifier)
            func answer(_ accepted: Bool) -> Bool {
                record(host, .updateValue(value, characteristic: characteristic.uuid.uuidString, centrals: ids, accepted: accepted))
                return accepted
            }
            guard manager.requirePoweredOn("updateValue(_:for:onSubscribedCentrals:)") else { return answer(false) }
            guard let service = characteristic.service, manager.published.contains(where: { $0 === service }) else {
                misuse(host, "updateValue(_:for:onSubscribedCentrals:) for \(characteristic.uuid), which is not published")
                return answer(false)
            }
            let key = AttributeKey(service: service.uuid, characteristic: characteristic.uuid)
            let targets = links.filter { link in
                link.serverHost === host && link.subscriptions.contains(key)
                    && (ids == nil || ids?.contains(link.clientIdentifier) == true)
            }
            guard !targets.isEmpty else { return answer(true) }
            guard manager.queuedUpdates + targets.count <= host.notificationCapacity else {
                // "…fails because the underlying queue used to transmit the updated characteristic value is full":
                // peripheralManagerIsReady(toUpdateSubscribers:) follows once there is room.
                manager.owesReady = true
                return answer(false)
            }
            for link in targets {
                if value.count > link.mtu - 3 {
                    misuse(host, "notification of \(value.count) bytes, more than maximumUpdateValueLength = "
                        + "\(link.mtu - 3) (truncated)")
                }
                link.toClient.append(Packet(key: key, value: value.prefix(link.mtu - 3), sender: manager))
                manager.queuedUpdates += 1
                if host.holding { link.unscheduledToClient += 1 } else { schedule(link, .toClient) }
            }
            return answer(true)
        }
    }

    func respond(_ manager: CBPeripheralManager, _ request: CBATTRequest, _ result: CBATTError.Code) {
        withLock {
            record(manager.host, .respond(characteristic: request.characteristic.uuid.uuidString, result: result))
            guard manager.requirePoweredOn("respond(to:withResult:)") else { return }
            guard let pending = manager.pendingRequests.removeValue(forKey: request.id) else {
                misuse(manager.host, "respond(to:withResult:) for a request answered already, never received, or a Write Command")
                return
            }
            guard pending.link.up else { return }
            pending.answer(result == .success ? .success(request.value ?? Data()) : .failure(CBATTError(result)))
        }
    }
}

/// One LE connection: a GATT client (an app's central manager, or a `TestCentral`) and a GATT server (a host's
/// database, or a `TestPeripheral`), with the PDUs queued in each direction.
final class Link {
    enum Client {
        case app(WeakRef<CBCentralManager>, CBPeripheral)
        case test(TestCentral)
    }

    enum Server {
        case host(BluetoothHost)
        case test(TestPeripheral)
    }

    let client: Client
    let clientHost: BluetoothHost?
    let clientManagerID: ObjectIdentifier?
    /// What the server sees as `CBCentral.identifier`.
    let clientIdentifier: UUID
    let server: Server
    /// What the client sees as `CBPeripheral.identifier`.
    let serverIdentifier: UUID
    let mtu: Int
    var up = true
    var subscriptions: [AttributeKey] = []
    var toServer: [Packet] = []
    var toClient: [Packet] = []
    var unscheduledToServer = 0
    var unscheduledToClient = 0
    var owesWriteReady = false
    /// The app cancelled the connection: it no longer sees the link, the server still does until the PDUs queued
    /// before the cancellation are on air.
    var clientDetached = false
    /// Services the client discovered (bytes of their UUIDs).
    var discovered: Set<Data> = []

    init(
        client: Client, clientHost: BluetoothHost?, clientManagerID: ObjectIdentifier?, clientIdentifier: UUID,
        server: Server, serverIdentifier: UUID, mtu: Int
    ) {
        self.client = client
        self.clientHost = clientHost
        self.clientManagerID = clientManagerID
        self.clientIdentifier = clientIdentifier
        self.server = server
        self.serverIdentifier = serverIdentifier
        self.mtu = mtu
    }

    var serverHost: BluetoothHost? {
        if case .host(let host) = server { return host }
        return nil
    }
}

/// A Write Command or notification on its way.
struct Packet {
    let key: AttributeKey
    let value: Data
    /// The peripheral manager whose transmit queue holds a notification.
    let sender: CBPeripheralManager?
}

/// A read or write request a peripheral manager has to answer.
struct PendingRequest {
    let link: Link
    let request: CBATTRequest
    let answer: (Result<Data, CBATTError>) -> Void
}

/// A characteristic in a GATT database: its service's and its own UUID bytes.
struct AttributeKey: Hashable {
    let service: Data
    let characteristic: Data

    init(service: CBUUID, characteristic: CBUUID) {
        self.service = service.data
        self.characteristic = characteristic.data
    }

    init(service: UUID, characteristic: UUID) {
        self.init(service: CBUUID(nsuuid: service), characteristic: CBUUID(nsuuid: characteristic))
    }

    var characteristicUUID: CBUUID { CBUUID(data: characteristic) }

    /// The characteristic as a Foundation UUID (the double's test peers name 128-bit UUIDs; a shorter one, which
    /// they never publish, maps to the nil UUID).
    var characteristicID: UUID { UUID(bytes: characteristic) ?? UUID(uuid: UUID.nilBytes) }
}

extension UUID {
    static let nilBytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// The UUID of 16 big-endian bytes; nil for any other length.
    init?(bytes data: Data) {
        guard data.count == 16 else { return nil }
        var value = UUID.nilBytes
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: data) }
        self.init(uuid: value)
    }
}

/// A manager the air knows, by identity, without keeping it alive.
struct ManagerEntry<Manager: AnyObject> {
    let id: ObjectIdentifier
    weak var value: Manager?

    init(_ manager: Manager) {
        id = ObjectIdentifier(manager)
        value = manager
    }
}

final class WeakRef<Value: AnyObject> {
    weak var value: Value?
    init(_ value: Value) { self.value = value }
}

/// Carries a value the double only touches under the air's lock or on the queue it was posted to.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
#endif
