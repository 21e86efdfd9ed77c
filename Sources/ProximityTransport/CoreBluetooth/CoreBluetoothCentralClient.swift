#if canImport(CoreBluetooth)
@preconcurrency import CoreBluetooth
#else
@preconcurrency import CoreBluetoothDouble
#endif
import Foundation
import Synchronization

/// `GATTClientLink` on a `CBCentralManager` and the `CBPeripheral` it connects to: scan for the service UUID,
/// connect, discover the service and its characteristics; ATT_MTU = `maximumWriteValueLength(for:
/// .withoutResponse)` + 3 (iOS negotiates the highest MTU it can by itself, §8.3.3.1.1.4).
///
/// `@unchecked Sendable`: `central` is immutable; `peripheral` (in `slot`) and `discovered` are only touched on
/// `queue` (where CoreBluetooth calls the delegates); everything else is in `state`, a `Mutex`.
final class CoreBluetoothCentralClient: NSObject, GATTClientLink, CBCentralManagerDelegate, CBPeripheralDelegate,
    @unchecked Sendable
{
    let serviceUUID: UUID
    private let events: @Sendable (GATTClientEvent) -> Void
    private let queue: DispatchQueue
    private let central: CBCentralManager
    private let slot = PeripheralSlot()
    private var discovered: [UUID: CBCharacteristic] = [:]
    private let state = Mutex(State())

    /// The peripheral connected to, or being connected to. A box, so that the clean-up block can take it without
    /// taking `self` (it runs from `deinit` too). Only touched on `queue`.
    private final class PeripheralSlot: @unchecked Sendable {
        var peripheral: CBPeripheral?
    }

    private var peripheral: CBPeripheral? {
        get { slot.peripheral }
        set { slot.peripheral = newValue }
    }

    private struct State: Sendable {
        var setup = Waiters<Void>()
        var setupFinished = false
        var connected = false
        var closed = false
        var attMTU = ATT.minimumMTU
        var characteristics: Set<UUID> = []
        /// Pending Read Requests and CCCD writes, by characteristic.
        var reads: [UUID: Waiters<Data>] = [:]
        var subscriptions: [UUID: Waiters<Void>] = [:]
        var readyToWrite = Waiters<Void>()
    }

    init(serviceUUID: UUID, events: @escaping @Sendable (GATTClientEvent) -> Void) {
        self.serviceUUID = serviceUUID
        self.events = events
        let queue = DispatchQueue(label: "tessera.ble.central")
        self.queue = queue
        self.central = CBCentralManager(delegate: nil, queue: queue)
        super.init()
    }

    deinit { disconnect() }

    var attMTU: Int { state.withLock { $0.attMTU } }
    var characteristics: Set<UUID> { state.withLock { $0.characteristics } }

    /// Scans, connects and discovers; `.serviceNotFound` when the scan time passes.
    func start(scanTimeout: Duration?) async throws(TransportError) {
        let id = state.withLock { $0.setup.reserve() }
        queue.async { [self] in
            central.delegate = self
            centralManagerDidUpdateState(central)
        }
        let result = await suspend(
            id: id, timeout: scanTimeout,
            park: { id, continuation in state.withLock { $0.setup.park(id, continuation) } },
            abandon: { [weak self] id, error in self?.state.withLock { $0.setup.abandon(id, with: error) } })
        do throws(TransportError) {
            try result.get()
        } catch {
            disconnect()
            throw error == .timedOut ? .serviceNotFound(serviceUUID) : error
        }
    }

    private func finishSetup(_ result: Result<Void, TransportError>) {
        state.withLock { state in
            guard !state.setupFinished else { return }
            state.setupFinished = true
            state.setup.resumeAll(with: result)
        }
    }

    // MARK: CBCentralManagerDelegate (on `queue`)

    func centralManagerDidUpdateState(_ central: CBCentralManager) {
        guard let outcome = transportState(central.state) else { return }
        switch outcome {
        case .failure(let error):
            finishSetup(.failure(error))
            linkLost()
        case .success:
            guard peripheral == nil, !state.withLock({ $0.closed }) else { return }
            central.scanForPeripherals(withServices: [CBUUID(uuid: serviceUUID)])
        }
    }

    func centralManager(
        _ central: CBCentralManager, didDiscover peripheral: CBPeripheral, advertisementData: [String: Any],
        rssi RSSI: NSNumber
    ) {
        guard self.peripheral == nil else { return }
        central.stopScan()
        self.peripheral = peripheral
        peripheral.delegate = self
        central.connect(peripheral)
    }

    func centralManager(_ central: CBCentralManager, didConnect peripheral: CBPeripheral) {
        state.withLock { $0.connected = true }
        peripheral.discoverServices([CBUUID(uuid: serviceUUID)])
    }

    func centralManager(_ central: CBCentralManager, didFailToConnect peripheral: CBPeripheral, error: Error?) {
        finishSetup(.failure(.disconnected))
    }

    func centralManager(
        _ central: CBCentralManager, didDisconnectPeripheral peripheral: CBPeripheral, error: Error?
    ) {
        finishSetup(.failure(.disconnected))
        linkLost()
    }

    private func linkLost() {
        let wasConnected = state.withLock { state -> Bool in
            defer { state.connected = false }
            for key in state.reads.keys { state.reads[key]?.resumeAll(with: .failure(.disconnected)) }
            for key in state.subscriptions.keys { state.subscriptions[key]?.resumeAll(with: .failure(.disconnected)) }
            state.readyToWrite.resumeAll(with: .failure(.disconnected))
            return state.connected && state.setupFinished && !state.closed
        }
        if wasConnected { events(.disconnected) }
    }

    // MARK: CBPeripheralDelegate (on `queue`)

    func peripheral(_ peripheral: CBPeripheral, didDiscoverServices error: Error?) {
        guard error == nil,
            let service = peripheral.services?.first(where: { $0.uuid.foundationUUID == serviceUUID })
        else {
            finishSetup(.failure(.serviceNotFound(serviceUUID)))
            return
        }
        peripheral.discoverCharacteristics(nil, for: service)
    }

    func peripheral(_ peripheral: CBPeripheral, didDiscoverCharacteristicsFor service: CBService, error: Error?) {
        guard error == nil else {
            finishSetup(.failure(.disconnected))
            return
        }
        for characteristic in service.characteristics ?? [] {
            if let uuid = characteristic.uuid.foundationUUID { discovered[uuid] = characteristic }
        }
        let mtu = peripheral.maximumWriteValueLength(for: .withoutResponse) + ATT.headerLength
        let found = Set(discovered.keys)
        state.withLock { state in
            state.attMTU = max(ATT.minimumMTU, mtu)
            state.characteristics = found
        }
        finishSetup(.success(()))
    }

    func peripheral(_ peripheral: CBPeripheral, didUpdateValueFor characteristic: CBCharacteristic, error: Error?) {
        guard let uuid = characteristic.uuid.foundationUUID else { return }
        let value = characteristic.value ?? Data()
        // A pending read takes the value; anything else is a notification.
        let wasRead = state.withLock { state -> Bool in
            guard state.reads[uuid] != nil else { return false }
            let result: Result<Data, TransportError> = error == nil ? .success(value) : .failure(.disconnected)
            return state.reads[uuid]?.resumeFirst(with: result) ?? false
        }
        if !wasRead, error == nil { events(.notified(uuid, value)) }
    }

    func peripheral(
        _ peripheral: CBPeripheral, didUpdateNotificationStateFor characteristic: CBCharacteristic, error: Error?
    ) {
        guard let uuid = characteristic.uuid.foundationUUID else { return }
        let result: Result<Void, TransportError> =
            error == nil && characteristic.isNotifying
            ? .success(()) : .failure(.protocolViolation("notifications refused on \(uuid.uuidString)"))
        state.withLock { _ = $0.subscriptions[uuid]?.resumeFirst(with: result) }
    }

    /// The peripheral removed the session's service (Service Changed). An iOS peripheral that closes cannot drop a
    /// central, it removes its service: for this link that is the peer going away.
    func peripheral(_ peripheral: CBPeripheral, didModifyServices invalidatedServices: [CBService]) {
        guard invalidatedServices.contains(where: { $0.uuid.foundationUUID == serviceUUID }) else { return }
        finishSetup(.failure(.disconnected))
        linkLost()
    }

    func peripheralIsReady(toSendWriteWithoutResponse peripheral: CBPeripheral) {
        state.withLock { $0.readyToWrite.resumeAll(with: .success(())) }
    }

    // MARK: GATTClientLink

    func read(_ characteristic: UUID) async throws(TransportError) -> Data {
        let id = try state.withLock { state throws(TransportError) -> UInt64 in
            guard state.connected, !state.closed else { throw .disconnected }
            return state.reads[characteristic, default: Waiters()].reserve()
        }
        queue.async { [self] in
            guard let peripheral, let target = discovered[characteristic] else {
                state.withLock { $0.reads[characteristic]?.abandon(id, with: .characteristicNotFound(characteristic)) }
                return
            }
            peripheral.readValue(for: target)
        }
        let result = await suspend(
            id: id, timeout: .seconds(10),
            park: { id, continuation in state.withLock { $0.reads[characteristic, default: Waiters()].park(id, continuation) } },
            abandon: { [weak self] id, error in self?.state.withLock { $0.reads[characteristic]?.abandon(id, with: error) } })
        return try result.get()
    }

    func subscribe(_ characteristic: UUID) async throws(TransportError) {
        let id = try state.withLock { state throws(TransportError) -> UInt64 in
            guard state.connected, !state.closed else { throw .disconnected }
            return state.subscriptions[characteristic, default: Waiters()].reserve()
        }
        queue.async { [self] in
            guard let peripheral, let target = discovered[characteristic] else {
                state.withLock {
                    $0.subscriptions[characteristic]?.abandon(id, with: .characteristicNotFound(characteristic))
                }
                return
            }
            peripheral.setNotifyValue(true, for: target)
        }
        let result = await suspend(
            id: id, timeout: .seconds(10),
            park: { id, continuation in
                state.withLock { $0.subscriptions[characteristic, default: Waiters()].park(id, continuation) }
            },
            abandon: { [weak self] id, error in
                self?.state.withLock { $0.subscriptions[characteristic]?.abandon(id, with: error) }
            })
        try result.get()
    }

    func writeWithoutResponse(_ value: Data, characteristic: UUID) async throws(TransportError) {
        while true {
            // Reserve first, so a "ready" between a refused write and the wait is not lost.
            let id = try state.withLock { state throws(TransportError) -> UInt64 in
                guard state.connected, !state.closed else { throw .disconnected }
                return state.readyToWrite.reserve()
            }
            let outcome: Result<Bool, TransportError> = await withCheckedContinuation { continuation in
                queue.async { [self] in
                    guard let peripheral, let target = discovered[characteristic] else {
                        continuation.resume(returning: .failure(.characteristicNotFound(characteristic)))
                        return
                    }
                    guard peripheral.canSendWriteWithoutResponse else {
                        continuation.resume(returning: .success(false))
                        return
                    }
                    peripheral.writeValue(value, for: target, type: .withoutResponse)
                    continuation.resume(returning: .success(true))
                }
            }
            switch outcome {
            case .failure(let error):
                state.withLock { $0.readyToWrite.discard(id) }
                throw error
            case .success(true):
                state.withLock { $0.readyToWrite.discard(id) }
                return
            case .success(false):
                let result = await suspend(
                    id: id, timeout: nil,
                    park: { id, continuation in state.withLock { $0.readyToWrite.park(id, continuation) } },
                    abandon: { [weak self] id, error in
                        self?.state.withLock { $0.readyToWrite.abandon(id, with: error) }
                    })
                try result.get()
            }
        }
    }

    func disconnect() {
        let wasClosed = state.withLock { state -> Bool in
            defer { state.closed = true }
            return state.closed
        }
        finishSetup(.failure(.closed))
        guard !wasClosed else { return }
        // Runs from deinit too, so the block must not capture self: it takes the manager and the slot.
        let central = self.central
        let slot = self.slot
        queue.async {
            // CoreBluetooth takes commands in the powered-on state only; below it the scan and the connection are
            // gone already.
            if central.state == .poweredOn {
                central.stopScan()
                // Cancels a pending attempt too: those never time out, and retrieveConnectedPeripherals(withServices:)
                // would only have listed an established connection.
                if let peripheral = slot.peripheral { central.cancelPeripheralConnection(peripheral) }
            }
            central.delegate = nil
        }
    }
}
