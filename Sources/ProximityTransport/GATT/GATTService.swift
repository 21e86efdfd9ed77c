import Foundation

/// Characteristic properties the ISO 18013-5 services use (§8.3.3.1.1.3, "Mandatory properties").
public struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = GATTCharacteristicProperties(rawValue: 1 << 0)
    public static let writeWithoutResponse = GATTCharacteristicProperties(rawValue: 1 << 1)
    public static let notify = GATTCharacteristicProperties(rawValue: 1 << 2)
}

/// One characteristic of a published service; `value` is the static value of a readable one (Ident).
public struct GATTCharacteristicDefinition: Sendable, Hashable {
    public var uuid: UUID
    public var properties: GATTCharacteristicProperties
    public var value: Data?

    public init(uuid: UUID, properties: GATTCharacteristicProperties, value: Data? = nil) {
        self.uuid = uuid
        self.properties = properties
        self.value = value
    }
}

/// A primary service as the GATT server publishes it.
public struct GATTServiceDefinition: Sendable, Hashable {
    public var uuid: UUID
    public var characteristics: [GATTCharacteristicDefinition]

    public init(uuid: UUID, characteristics: [GATTCharacteristicDefinition]) {
        self.uuid = uuid
        self.characteristics = characteristics
    }

    public func characteristic(_ uuid: UUID) -> GATTCharacteristicDefinition? {
        characteristics.first { $0.uuid == uuid }
    }
}

/// ATT protocol sizes (Bluetooth Core 5.x Vol 3 Part F).
public enum ATT {
    /// The smallest ATT_MTU of an LE link (default before an MTU exchange).
    public static let minimumMTU = 23
    /// Opcode (1) + attribute handle (2) in front of every Write Command and Handle Value Notification.
    public static let headerLength = 3
    /// The longest attribute value.
    public static let maximumAttributeLength = 512
}
