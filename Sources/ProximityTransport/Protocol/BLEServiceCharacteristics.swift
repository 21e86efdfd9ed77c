import Foundation

/// The characteristic UUIDs of the two ISO/IEC 18013-5:2021 services (§8.3.3.1.1.3).
///
/// Table 11, mdoc service (mdoc peripheral server mode): State `00000001-A123-48CE-896B-4C76973373E6`
/// (notify, write without response), Client2Server `…0002…` (write without response), Server2Client `…0003…`
/// (notify). Table 12, mdoc reader service (mdoc central client mode): State `…0005…`, Client2Server `…0006…`,
/// Server2Client `…0007…`, Ident `…0008…` (read). The optional L2CAP characteristics (`…000A…`, `…000B…`) are not
/// offered. Cross-checked against multipaz (`BleTransportPeripheralMdoc.kt` / `BleTransportCentralMdoc*.kt`),
/// which also reads Ident only in central client mode.
public struct BLEServiceCharacteristics: Sendable, Hashable {
    public let state: UUID
    public let client2Server: UUID
    public let server2Client: UUID
    /// Present in the mdoc reader service only.
    public let ident: UUID?

    /// Length of the Ident value (§8.3.3.1.1.4).
    public static let identLength = 16

    /// Table 11: the mdoc service.
    public static let mdocService = BLEServiceCharacteristics(
        state: uuid(0x01), client2Server: uuid(0x02), server2Client: uuid(0x03), ident: nil)
    /// Table 12: the mdoc reader service.
    public static let mdocReaderService = BLEServiceCharacteristics(
        state: uuid(0x05), client2Server: uuid(0x06), server2Client: uuid(0x07), ident: uuid(0x08))

    public static func forMode(_ mode: BLEMode) -> BLEServiceCharacteristics {
        switch mode {
        case .mdocPeripheralServer: return mdocService
        case .mdocCentralClient: return mdocReaderService
        }
    }

    /// The GATT service the server side publishes for `serviceUUID`, with the Ident value where Table 12 has one.
    public func serviceDefinition(serviceUUID: UUID, identValue: Data?) -> GATTServiceDefinition {
        var characteristics = [
            GATTCharacteristicDefinition(uuid: state, properties: [.notify, .writeWithoutResponse]),
            GATTCharacteristicDefinition(uuid: client2Server, properties: [.writeWithoutResponse]),
            GATTCharacteristicDefinition(uuid: server2Client, properties: [.notify]),
        ]
        if let ident {
            characteristics.append(GATTCharacteristicDefinition(uuid: ident, properties: [.read], value: identValue))
        }
        return GATTServiceDefinition(uuid: serviceUUID, characteristics: characteristics)
    }

    /// `0000000n-A123-48CE-896B-4C76973373E6`.
    private static func uuid(_ n: UInt8) -> UUID {
        UUID(uuid: (0, 0, 0, n, 0xA1, 0x23, 0x48, 0xCE, 0x89, 0x6B, 0x4C, 0x76, 0x97, 0x33, 0x73, 0xE6))
    }
}

/// State characteristic values (§8.3.3.1.1.5, Table 13).
public enum BLEStateValue: UInt8, Sendable, Hashable {
    /// Written by the GATT client once subscribed: transmission may begin.
    case start = 0x01
    /// Either side: finish / terminate the transaction.
    case end = 0x02
}
