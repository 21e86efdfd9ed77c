#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
#else
@preconcurrency import CoreBluetoothDouble
#endif
import Foundation
import Synchronization

/// `GATTServerLink` on a `CBPeripheralManager`. CoreBluetooth reports no connect / disconnect to a peripheral, so
/// the first subscription of a central stands for `.connected` (ATT_MTU = `maximumUpdateValueLength` + 3) and
/// losing all its subscriptions for `.disconnected`.
///
/// `@unchecked Sendable`: `manager` is immutable; `service` and `characteristics` are only touched on `queue`
/// (where CoreBluetooth calls the delegate); everything else is in `state`, a `Mutex`.
final class CoreBluetoothPeripheralServer: NSObject, GATTServerLink, CBPeripheralManagerDelegate, @unchecked Sendable {
    let serviceUUID: UUID
    private let definition: GATTServiceDefinition
    private let events: @Sendable (GATTServerEvent) -> Void
    private let queue: DispatchQueue
    private let manager: CBPeripheralManager
    private var service: CBMutableService?
    private var characteristics: [UUID: CBMutableCharacteristic] = [:]
    private let state = Mutex(State())

    private struct State: Sendable {
        var advertising = false
        var closed = false
        var started = Waiters<Void>()
        var startFinished = false
        /// The one central served, and what it subscribed to.
        var central: UUID?
        var subscribed: Set<UUID> = []
        var readyForUpdates = Waiters<Void>()
    }

    init(definition: GATTServiceDefinition, events: @escaping @Sendable (GATTServerEvent) -> Void) {
        self.serviceUUID = definition.uuid
        self.definition = definition
        self.events = events
        let queue = DispatchQueue(label: "tessera.ble.peripheral")
        self.queue = queue
        self.manager = CBPeripheralManager(delegate: nil, queue: queue)
        super.init()
    }

    deinit { close() }

    var isAdvertising: Bool { state.withLock { $0.advertising } }

    /// Powers up, adds the service and starts advertising its UUID.
    func start() async throws(TransportError) {
        let id = state.withLock { $0.started.reserve() }
        queue.async { [self] in
            manager.delegate = self
            peripheralManagerDidUpdateState(manager)
        }
        let result = await suspend(
            id: id, timeout: .seconds(10),
            park: { id, continuation in state.withLock { $0.started.park(id, continuation) } },
            abandon: { [weak self] id, error in self?.state.withLock { $0.started.abandon(id, with: error) } })
        do throws(TransportError) {
            try result.get()
        } catch {
            close()
            throw error == .timedOut ? .radioUnavailable : error
        }
    }

    private func finishStart(_ result: Result<Void, TransportError>) {
        state.withLock { state in
            guard !state.startFinished else { return }
            state.startFinished = true
            state.started.resumeAll(with: result)
        }
    }

    // MARK: CBPeripheralManagerDelegate (on `queue`)

    func peripheralManagerDidUpdateState(_ peripheral: CBPeripheralManager) {
        guard let outcome = transportState(peripheral.state) else { return }
        switch outcome {
        case .failure(let error):
            finishStart(.failure(error))
            if state.withLock({ $0.central != nil }) { centralLost() }
        case .success:
            guard service == nil, !state.withLock({ $0.closed }) else { return }
            let service = CBMutableService(type: CBUUID(uuid: definition.uuid), primary: true)
            var made: [CBMutableCharacteristic] = []
            for item in definition.characteristics {
                var properties: CBCharacteristicProperties = []
                var permissions: CBAttributePermissions = []
                if item.properties.contains(.read) {
                    properties.insert(.read)
                    permissions.insert(.readable)
                }
                if item.properties.contains(.writeWithoutResponse) {
                    properties.insert(.writeWithoutResponse)
                    permissions.insert(.writeable)
                }
                if item.properties.contains(.notify) { properties.insert(.notify) }
                // A static value is allowed for read-only characteristics only (the Ident).
                let value = item.properties == [.read] ? item.value : nil
                let characteristic = CBMutableCharacteristic(
                    type: CBUUID(uuid: item.uuid), properties: properties, value: value, permissions: permissions)
                characteristics[item.uuid] = characteristic
                made.append(characteristic)
            }
            service.characteristics = made
            self.service = service
            peripheral.add(service)
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didAdd service: CBService, error: Error?) {
        guard error == nil else {
            finishStart(.failure(.radioUnavailable))
            return
        }
        peripheral.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(uuid: definition.uuid)]])
    }

    func peripheralManagerDidStartAdvertising(_ peripheral: CBPeripheralManager, error: Error?) {
        guard error == nil else {
            finishStart(.failure(.radioUnavailable))
            return
        }
        state.withLock { $0.advertising = true }
        finishStart(.success(()))
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didSubscribeTo characteristic: CBCharacteristic
    ) {
        guard let uuid = characteristic.uuid.foundationUUID else { return }
        let isNew = state.withLock { state -> Bool? in
            if let current = state.central, current != central.identifier { return nil }
            let isNew = state.central == nil
            state.central = central.identifier
            state.subscribed.insert(uuid)
            return isNew
        }
        guard let isNew else { return }  // one central at a time
        if isNew { events(.connected(attMTU: central.maximumUpdateValueLength + ATT.headerLength)) }
        events(.subscribed(uuid))
    }

    func peripheralManager(
        _ peripheral: CBPeripheralManager, central: CBCentral, didUnsubscribeFrom characteristic: CBCharacteristic
    ) {
        guard let uuid = characteristic.uuid.foundationUUID else { return }
        let empty = state.withLock { state -> Bool? in
            guard state.central == central.identifier else { return nil }
            state.subscribed.remove(uuid)
            return state.subscribed.isEmpty
        }
        guard let empty else { return }
        events(.unsubscribed(uuid))
        if empty { centralLost() }
    }

    private func centralLost() {
        state.withLock { state in
            state.central = nil
            state.subscribed = []
            state.readyForUpdates.resumeAll(with: .failure(.disconnected))
        }
        events(.disconnected)
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveWrite requests: [CBATTRequest]) {
        let central = state.withLock { $0.central }
        for request in requests where request.central.identifier == central {
            guard let uuid = request.characteristic.uuid.foundationUUID else { continue }
            events(.written(uuid, request.value ?? Data()))
        }
    }

    func peripheralManager(_ peripheral: CBPeripheralManager, didReceiveRead request: CBATTRequest) {
        // Readable values are static on the characteristic and answered by CoreBluetooth itself.
        peripheral.respond(to: request, withResult: .readNotPermitted)
    }

    func peripheralManagerIsReady(toUpdateSubscribers peripheral: CBPeripheralManager) {
        state.withLock { $0.readyForUpdates.resumeAll(with: .success(())) }
    }

    // MARK: GATTServerLink

    func notify(_ value: Data, characteristic: UUID) async throws(TransportError) {
        // Only a notifying characteristic of the service can be updated; anything else would never be "ready".
        guard let item = definition.characteristic(characteristic) else { throw .characteristicNotFound(characteristic) }
        guard item.properties.contains(.notify) else {
            throw .protocolViolation("characteristic \(characteristic.uuidString) does not notify")
        }
        while true {
            // Reserve before trying, so a "ready" between a refused update and the wait is not lost.
            let id = try state.withLock { state throws(TransportError) -> UInt64 in
                guard !state.closed, state.central != nil else { throw .disconnected }
                return state.readyForUpdates.reserve()
            }
            // nil: the service is not published (any more).
            let sent: Bool? = await withCheckedContinuation { continuation in
                queue.async { [self] in
                    guard let target = characteristics[characteristic] else {
                        continuation.resume(returning: nil)
                        return
                    }
                    continuation.resume(returning: manager.updateValue(value, for: target, onSubscribedCentrals: nil))
                }
            }
            guard let sent else {
                state.withLock { $0.readyForUpdates.discard(id) }
                throw .disconnected
            }
            if sent {
                state.withLock { $0.readyForUpdates.discard(id) }
                return
            }
            // The transmit queue is full: wait for peripheralManagerIsReady(toUpdateSubscribers:).
            let result = await suspend(
                id: id, timeout: nil,
                park: { id, continuation in state.withLock { $0.readyForUpdates.park(id, continuation) } },
                abandon: { [weak self] id, error in
                    self?.state.withLock { $0.readyForUpdates.abandon(id, with: error) }
                })
            try result.get()
        }
    }

    func stopAdvertising() {
        state.withLock { $0.advertising = false }
        let manager = self.manager
        queue.async {
            // Below .poweredOn advertising has stopped already, and CoreBluetooth refuses commands.
            if manager.state == .poweredOn { manager.stopAdvertising() }
        }
    }

    func close() {
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            state.advertising = false
            state.readyForUpdates.resumeAll(with: .failure(.disconnected))
            return state.closed
        }
        finishStart(.failure(.closed))
        guard !wasClosed else { return }
        // CoreBluetooth cannot drop a central; removing the service ends what the central can do with it.
        let manager = self.manager
        queue.async {
            // CoreBluetooth takes commands in the powered-on state only; below it advertising has stopped and the
            // centrals are disconnected already.
            if manager.state == .poweredOn {
                manager.stopAdvertising()
                manager.removeAllServices()
            }
            manager.delegate = nil
        }
    }
}
