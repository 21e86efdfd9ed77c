#if !canImport(CoreBluetooth)
import Foundation

/// Mirrors CoreBluetooth `CBManagerState` (`NS_ENUM(NSInteger)`, raw values as in `CBManager.h`).
public enum CBManagerState: Int, Sendable, Hashable {
    /// The manager's state is unknown (every manager starts here until the system reports).
    case unknown = 0
    /// The connection with the system service was momentarily lost; an update is imminent.
    case resetting = 1
    /// The platform doesn't support Bluetooth Low Energy.
    case unsupported = 2
    /// The app isn't authorized to use Bluetooth Low Energy.
    case unauthorized = 3
    /// Bluetooth is currently powered off.
    case poweredOff = 4
    /// Bluetooth is currently powered on and available to use.
    case poweredOn = 5
}

/// Mirrors CoreBluetooth `CBManagerAuthorization` (iOS 13), raw values as in `CBManager.h`.
public enum CBManagerAuthorization: Int, Sendable, Hashable {
    /// The user has yet to authorize Bluetooth for this app.
    case notDetermined = 0
    /// This app isn't authorized to use Bluetooth (e.g. parental controls).
    case restricted = 1
    /// The user explicitly denied Bluetooth access for this app.
    case denied = 2
    /// The user has authorized Bluetooth at any time.
    case allowedAlways = 3
}

/// Mirrors CoreBluetooth `CBCharacteristicProperties` (`NS_OPTIONS(NSUInteger)`, bit values as in
/// `CBCharacteristic.h`).
public struct CBCharacteristicProperties: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let broadcast = CBCharacteristicProperties(rawValue: 0x01)
    public static let read = CBCharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CBCharacteristicProperties(rawValue: 0x04)
    public static let write = CBCharacteristicProperties(rawValue: 0x08)
    public static let notify = CBCharacteristicProperties(rawValue: 0x10)
    public static let indicate = CBCharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = CBCharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = CBCharacteristicProperties(rawValue: 0x80)
    public static let notifyEncryptionRequired = CBCharacteristicProperties(rawValue: 0x100)
    public static let indicateEncryptionRequired = CBCharacteristicProperties(rawValue: 0x200)
}

/// Mirrors CoreBluetooth `CBAttributePermissions` (`NS_OPTIONS(NSUInteger)`).
public struct CBAttributePermissions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let readable = CBAttributePermissions(rawValue: 0x01)
    public static let writeable = CBAttributePermissions(rawValue: 0x02)
    public static let readEncryptionRequired = CBAttributePermissions(rawValue: 0x04)
    public static let writeEncryptionRequired = CBAttributePermissions(rawValue: 0x08)
}

/// Mirrors CoreBluetooth `CBCharacteristicWriteType` (`NS_ENUM(NSInteger)`).
public enum CBCharacteristicWriteType: Int, Sendable, Hashable {
    /// A Write Request: the peripheral answers, `peripheral(_:didWriteValueFor:error:)` follows.
    case withResponse = 0
    /// A Write Command: no answer, best effort; paced by `canSendWriteWithoutResponse`.
    case withoutResponse = 1
}

/// Mirrors the Swift face of CoreBluetooth's ATT errors (`CBATTError`, a struct with a `Code` enum) that
/// `CBPeripheralManager.respond(to:withResult:)` takes and remote reads and writes fail with. Codes are the
/// Bluetooth ATT error codes (Core 4.0 Vol 3 Part F §3.4.1.1).
public struct CBATTError: Error, Sendable, Hashable {
    public enum Code: Int, Sendable, Hashable {
        case success = 0
        case invalidHandle = 1
        case readNotPermitted = 2
        case writeNotPermitted = 3
        case invalidPdu = 4
        case insufficientAuthentication = 5
        case requestNotSupported = 6
        case invalidOffset = 7
        case insufficientAuthorization = 8
        case prepareQueueFull = 9
        case attributeNotFound = 10
        case attributeNotLong = 11
        case insufficientEncryptionKeySize = 12
        case invalidAttributeValueLength = 13
        case unlikelyError = 14
        case insufficientEncryption = 15
        case unsupportedGroupType = 16
        case insufficientResources = 17
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let errorDomain = "CBATTErrorDomain"
    public static var readNotPermitted: Code { .readNotPermitted }
    public static var writeNotPermitted: Code { .writeNotPermitted }
    public static var requestNotSupported: Code { .requestNotSupported }
}

/// Mirrors the Swift face of CoreBluetooth's general errors (`CBError`, domain `CBErrorDomain`), for the failures
/// this double reports in delegate callbacks. Raw values as in `CBError.h`.
public struct CBError: Error, Sendable, Hashable {
    public enum Code: Int, Sendable, Hashable {
        case unknown = 0
        case invalidParameters = 1
        case invalidHandle = 2
        case notConnected = 3
        case outOfSpace = 4
        case operationCancelled = 5
        case connectionTimeout = 6
        case peripheralDisconnected = 7
        case uuidNotAllowed = 8
        case alreadyAdvertising = 9
        case connectionFailed = 10
        case connectionLimitReached = 11
        case operationNotSupported = 13
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let errorDomain = "CBErrorDomain"
}

/// Mirrors `CBAdvertisementDataServiceUUIDsKey`: the advertised service UUIDs, an array of `CBUUID`. One of the two
/// keys `CBPeripheralManager.startAdvertising(_:)` accepts.
public let CBAdvertisementDataServiceUUIDsKey = "kCBAdvDataServiceUUIDs"
/// Mirrors `CBAdvertisementDataLocalNameKey`: the local name, a `String`. The other key `startAdvertising(_:)`
/// accepts.
public let CBAdvertisementDataLocalNameKey = "kCBAdvDataLocalName"
/// Mirrors `CBAdvertisementDataIsConnectable`: a Boolean `NSNumber` in the advertisement data a central receives.
public let CBAdvertisementDataIsConnectable = "kCBAdvDataIsConnectable"
#endif
