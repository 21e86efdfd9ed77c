import Foundation
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraQR
import ProximitySession

/// What the holder shows: the DeviceEngagement (bytes kept, they go into the SessionTranscript), its
/// `mdoc:` URI, the QR code of that URI, and the BLE endpoint the engagement announces.
public struct HolderEngagement: Sendable {
    /// The DeviceEngagement with the bytes it was encoded to: those bytes enter the SessionTranscript (ISO/IEC
    /// 18013-5:2021 §9.1.5.1), so they are never re-encoded (ARCHITECTURE.md decision 1).
    public let deviceEngagement: EncodedCBOR<DeviceEngagement>
    /// The `mdoc:` URI carrying the engagement, base64url (§8.2.2.3).
    public let uri: String
    /// The QR code of ``uri`` (ISO/IEC 18004), for the screen.
    public let qrCode: QRCode
    /// The BLE service UUID, mode and Ident the engagement announces; the transport advertises or connects to it.
    public let endpoint: BLEEndpoint

    /// An engagement from its parts; ``MDocCryptoService/prepareEngagement(in:)`` builds them consistently.
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
    /// EDeviceKey, the mdoc's ephemeral key-agreement key (§9.1.5.2); nil once wiped.
    public private(set) var eDeviceKey: EphemeralPrivateKey?
    /// SKDevice and SKReader with their message counters (§9.1.1.5), set when the reader's SessionEstablishment arrived.
    public private(set) var encryption: SessionEncryption?
    /// The SessionTranscript (§9.1.5.1) the DeviceResponse is bound to, set with ``encryption``.
    public private(set) var sessionTranscript: SessionTranscript?

    init(eDeviceKey: EphemeralPrivateKey) { self.eDeviceKey = eDeviceKey }

    func establish(encryption: SessionEncryption, sessionTranscript: SessionTranscript) {
        self.encryption = encryption
        self.sessionTranscript = sessionTranscript
    }

    /// Drops every secret; called when the session is released and from `deinit`.
    public func wipe() {
        eDeviceKey = nil
        encryption = nil
        sessionTranscript = nil
    }

    deinit { wipe() }
}

/// The decrypted request as the consent UI shows it.
public struct ReceivedRequest: Sendable {
    /// The DeviceRequest as decrypted from the reader's SessionEstablishment (§8.3.2.1.2.1).
    public let deviceRequest: DeviceRequest
    /// Per DocRequest, what ReaderAuth said (nil when the holder has no reader trust configured).
    public let readerAuthentication: [ReaderAuthenticationOutcome?]
    /// Elements requested that the selected credential holds: docType → namespace → element → intentToRetain.
    public let available: [String: [String: [String: Bool]]]
    /// Requested elements the credential does not hold.
    public let unavailable: [String: [String: Set<String>]]

    /// A request as ``HolderOrchestrator`` describes it after decrypting and checking ReaderAuth.
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
