import Foundation
import TesseraCBOR

/// `DeviceRetrievalMethod = [type: uint, version: uint, RetrievalOptions]` (§8.2.1.1).
public struct DeviceRetrievalMethod: Sendable, Equatable {
    /// `RetrievalOptions`, by retrieval type (§8.2.1.1): typed for NFC and BLE, kept as received otherwise.
    public enum Options: Sendable, Equatable {
        /// Type 1: `NfcOptions = {0: maxLenCommandDataField, 1: maxLenResponseDataField}`.
        case nfc(maxLengthCommandData: UInt64, maxLengthResponseData: UInt64)
        /// Type 2: `BleOptions`.
        case ble(BLEOptions)
        /// Type 3: `WifiOptions`, kept as received.
        case wifiAware(CBOR)
        /// Any other type, kept as received.
        case other(type: UInt64, CBOR)
    }

    /// Version of the retrieval method; 1 is the only one defined.
    public var version: UInt64
    /// The options of this method; they also decide `type`.
    public var options: Options

    /// A retrieval method with its options (`type` follows from them).
    public init(version: UInt64 = 1, options: Options) {
        self.version = version
        self.options = options
    }

    /// The retrieval type: 1 NFC, 2 BLE, 3 Wi-Fi Aware, or the number received for others.
    public var type: UInt64 {
        switch options {
        case .nfc: return 1
        case .ble: return 2
        case .wifiAware: return 3
        case .other(let t, _): return t
        }
    }

    init(cbor: CBOR) throws(MDocError) {
        guard case .array(let a) = cbor, a.count >= 3, let type = a[0].uint64Value, let version = a[1].uint64Value,
            case .map(let options) = a[2]
        else {
            throw .invalidStructure(
                structure: "DeviceRetrievalMethod", reason: "must be [type, version, RetrievalOptions map]")
        }
        self.version = version
        switch type {
        case 1:
            guard let command = options[0]?.uint64Value, let response = options[1]?.uint64Value else {
                throw .invalidStructure(structure: "NfcOptions", reason: "needs keys 0 and 1 as uint")
            }
            self.options = .nfc(maxLengthCommandData: command, maxLengthResponseData: response)
        case 2: self.options = .ble(try BLEOptions(map: options))
        case 3: self.options = .wifiAware(a[2])
        default: self.options = .other(type: type, a[2])
        }
    }

    var cbor: CBOR {
        let optionsItem: CBOR
        switch options {
        case .nfc(let c, let r): optionsItem = [0: .unsigned(c), 1: .unsigned(r)]
        case .ble(let ble): optionsItem = ble.cbor
        case .wifiAware(let o), .other(_, let o): optionsItem = o
        }
        return [.unsigned(type), .unsigned(version), optionsItem]
    }
}

/// `BleOptions` (§8.2.1.1): which of the two BLE modes the mdoc supports and their UUIDs.
public struct BLEOptions: Sendable, Equatable {
    /// Key 0: mdoc peripheral server mode supported.
    public var supportsPeripheralServerMode: Bool
    /// Key 1: mdoc central client mode supported.
    public var supportsCentralClientMode: Bool
    /// Key 10: service UUID for peripheral server mode (16 bytes).
    public var peripheralServerModeUUID: UUID?
    /// Key 11: service UUID for central client mode.
    public var centralClientModeUUID: UUID?
    /// Key 20: the mdoc's BLE device address for peripheral server mode.
    public var peripheralServerModeDeviceAddress: Data?
    /// L2CAP PSM for peripheral server mode. Not yet standardized: key 2023, as multipaz writes it.
    public var peripheralServerModeL2CAPPSM: UInt64?
    /// Option keys this version does not know, kept as received.
    public var unknownEntries: [CBORMap.Entry]

    /// BLE options as the mdoc advertises them. `unknownEntries` starts empty.
    public init(
        supportsPeripheralServerMode: Bool, supportsCentralClientMode: Bool, peripheralServerModeUUID: UUID? = nil,
        centralClientModeUUID: UUID? = nil, peripheralServerModeDeviceAddress: Data? = nil,
        peripheralServerModeL2CAPPSM: UInt64? = nil
    ) {
        self.supportsPeripheralServerMode = supportsPeripheralServerMode
        self.supportsCentralClientMode = supportsCentralClientMode
        self.peripheralServerModeUUID = peripheralServerModeUUID
        self.centralClientModeUUID = centralClientModeUUID
        self.peripheralServerModeDeviceAddress = peripheralServerModeDeviceAddress
        self.peripheralServerModeL2CAPPSM = peripheralServerModeL2CAPPSM
        self.unknownEntries = []
    }

    static let psmKey: CBOR = 2023

    init(map: CBORMap) throws(MDocError) {
        func fail(_ r: String) -> MDocError { .invalidStructure(structure: "BleOptions", reason: r) }
        guard let peripheral = map[0]?.boolValue, let central = map[1]?.boolValue else {
            throw fail("keys 0 and 1 must be booleans")
        }
        func uuid(_ key: Int) throws(MDocError) -> UUID? {
            guard let item = map[key] else { return nil }
            guard case .bytes(let b) = item, b.count == 16 else { throw fail("key \(key) must be a 16-byte UUID") }
            return UUID(uuid: (b[b.startIndex], b[b.startIndex + 1], b[b.startIndex + 2], b[b.startIndex + 3],
                b[b.startIndex + 4], b[b.startIndex + 5], b[b.startIndex + 6], b[b.startIndex + 7],
                b[b.startIndex + 8], b[b.startIndex + 9], b[b.startIndex + 10], b[b.startIndex + 11],
                b[b.startIndex + 12], b[b.startIndex + 13], b[b.startIndex + 14], b[b.startIndex + 15]))
        }
        self.supportsPeripheralServerMode = peripheral
        self.supportsCentralClientMode = central
        self.peripheralServerModeUUID = try uuid(10)
        self.centralClientModeUUID = try uuid(11)
        if let address = map[20] {
            guard case .bytes(let b) = address else { throw fail("key 20 must be a byte string") }
            self.peripheralServerModeDeviceAddress = b
        } else {
            self.peripheralServerModeDeviceAddress = nil
        }
        if let psm = map[Self.psmKey] {
            guard let v = psm.uint64Value else { throw fail("L2CAP PSM must be a uint") }
            self.peripheralServerModeL2CAPPSM = v
        } else {
            self.peripheralServerModeL2CAPPSM = nil
        }
        let known: Set<CBOR> = [0, 1, 10, 11, 20, Self.psmKey]
        self.unknownEntries = map.entries.filter { !known.contains($0.key) }
    }

    var cbor: CBOR {
        var map = CBORMap()
        map.append(key: 0, value: .bool(supportsPeripheralServerMode))
        map.append(key: 1, value: .bool(supportsCentralClientMode))
        if let u = peripheralServerModeUUID { map.append(key: 10, value: .bytes(u.bytes)) }
        if let u = centralClientModeUUID { map.append(key: 11, value: .bytes(u.bytes)) }
        if let a = peripheralServerModeDeviceAddress { map.append(key: 20, value: .bytes(a)) }
        if let p = peripheralServerModeL2CAPPSM { map.append(key: Self.psmKey, value: .unsigned(p)) }
        for e in unknownEntries { map.append(key: e.key, value: e.value) }
        return .map(map)
    }
}

extension UUID {
    /// The 16 bytes in network order.
    var bytes: Data { withUnsafeBytes(of: uuid) { Data($0) } }
}
