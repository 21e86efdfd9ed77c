import Foundation
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraQR
import ProximitySession

/// What the holder shows: the DeviceEngagement (bytes kept, they go into the SessionTranscript), its
/// `mdoc:` URI, the QR code of that URI, and the BLE endpoint the engagement announces.
public struct HolderEngagement: Sendable {
    public let deviceEngagement: EncodedCBOR<DeviceEngagement>
    public let uri: String
    public let qrCode: QRCode
    public let endpoint: BLEEndpoint

    public init(deviceEngagement: EncodedCBOR<DeviceEngagement>, uri: String, qrCode: QRCode, endpoint: BLEEndpoint) {
        self.deviceEngagement = deviceEngagement
        self.uri = uri
        self.qrCode = qrCode
        self.endpoint = endpoint
    }
}

/// The session's ephemeral secrets: EDeviceKey, and once the reader's key arrived, the session encryption
/// (SKDevice/SKReader) and the SessionTranscript. Dropped by `wipe()`; swift-crypto zeroises private keys
/// and `SymmetricKey` storage when they are freed, so nothing else keeps a copy.
public final class HolderSessionKeys: SessionSecrets {
    public private(set) var eDeviceKey: EphemeralPrivateKey?
    public private(set) var encryption: SessionEncryption?
    public private(set) var sessionTranscript: SessionTranscript?

    init(eDeviceKey: EphemeralPrivateKey) { self.eDeviceKey = eDeviceKey }

    func establish(encryption: SessionEncryption, sessionTranscript: SessionTranscript) {
        self.encryption = encryption
        self.sessionTranscript = sessionTranscript
    }

    public func wipe() {
        eDeviceKey = nil
        encryption = nil
        sessionTranscript = nil
    }

    deinit { wipe() }
}

/// The decrypted request as the consent UI shows it.
public struct ReceivedRequest: Sendable {
    public let deviceRequest: DeviceRequest
    /// Per DocRequest, what ReaderAuth said (nil when the holder has no reader trust configured).
    public let readerAuthentication: [ReaderAuthenticationOutcome?]
    /// Elements requested that the selected credential holds: docType → namespace → element → intentToRetain.
    public let available: [String: [String: [String: Bool]]]
    /// Requested elements the credential does not hold.
    public let unavailable: [String: [String: Set<String>]]

    public init(
        deviceRequest: DeviceRequest, readerAuthentication: [ReaderAuthenticationOutcome?],
        available: [String: [String: [String: Bool]]], unavailable: [String: [String: Set<String>]]
    ) {
        self.deviceRequest = deviceRequest
        self.readerAuthentication = readerAuthentication
        self.available = available
        self.unavailable = unavailable
    }

    /// Everything available: the "Allow" answer.
    public var allAvailable: ConsentSelection {
        available.mapValues { $0.mapValues { Set($0.keys) } }
    }
}

/// What the user agreed to share: docType → namespace → element identifiers. Empty means deny.
public typealias ConsentSelection = [String: [String: Set<String>]]
