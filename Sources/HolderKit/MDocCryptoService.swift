import Foundation
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraCOSE
import TesseraCore
import TesseraQR

/// `CryptoService` on swift-crypto: ephemeral P-256 keys from the injected random source, a QR handover
/// (§8.2.2.3), and a BLE retrieval method in the configured mode.
public struct MDocCryptoService: CryptoService {
    /// The source of EDeviceKey and the service UUID (injected, so tests reproduce an engagement).
    public var random: any RandomSource
    /// The BLE mode the engagement offers (§8.3.3.1.1): mdoc peripheral server by default, the QR default.
    public var bleMode: BLEMode
    /// The curve of EDeviceKey (P-256 by default); the reader's EReaderKey must be on the same curve (§9.1.5.2).
    public var curve: COSECurve
    /// The QR code's error correction level (low keeps the code small enough to scan from a screen).
    public var qrLevel: QRErrorCorrectionLevel
    /// How DeviceSigned is authenticated (§9.1.3): ECDSA signature by default, or MAC.
    public var deviceAuthentication: DeviceAuthMode

    /// A service with the defaults every reader accepts: peripheral server mode, P-256, device signature.
    public init(
        random: any RandomSource = SystemRandomSource(), bleMode: BLEMode = .mdocPeripheralServer, curve: COSECurve = .p256,
        qrLevel: QRErrorCorrectionLevel = .low, deviceAuthentication: DeviceAuthMode = .signature
    ) {
        self.random = random
        self.bleMode = bleMode
        self.curve = curve
        self.qrLevel = qrLevel
        self.deviceAuthentication = deviceAuthentication
    }

    /// Generates EDeviceKey and a version 4 service UUID, builds the DeviceEngagement with one BLE retrieval method
    /// (§8.2.1.1), its `mdoc:` URI and QR code, and seals them into the session. A failure invalidates the session.
    nonisolated(nonsending) public func prepareEngagement(in session: HolderSession) async throws(HolderSessionError) {
        let built: (HolderEngagement, EphemeralPrivateKey)
        do {
            built = try makeEngagement()
        } catch {
            let failure = HolderSessionError.engagementFailed("\(error)")
            session.invalidate(failure)
            throw failure
        }
        try session.setEngagement(built.0, eDeviceKey: built.1)
    }

    private func makeEngagement() throws -> (HolderEngagement, EphemeralPrivateKey) {
        let key = try EphemeralPrivateKey.generate(curve: curve, random: random)
        let serviceUUID = UUID(uuid: uuidBytes())
        let ble: BLEOptions
        switch bleMode {
        case .mdocPeripheralServer:
            ble = BLEOptions(supportsPeripheralServerMode: true, supportsCentralClientMode: false, peripheralServerModeUUID: serviceUUID)
        case .mdocCentralClient:
            ble = BLEOptions(supportsPeripheralServerMode: false, supportsCentralClientMode: true, centralClientModeUUID: serviceUUID)
        }
        let security = try DeviceEngagement.Security(eDeviceKey: key.publicCOSEKey)
        let engagement = try DeviceEngagement(
            security: security, deviceRetrievalMethods: [DeviceRetrievalMethod(options: .ble(ble))]
        ).encoded()
        let uri = MDocQRCode.uri(for: engagement.bytes)
        let qr = try QRCode.encode(uri, level: qrLevel)
        let endpoint = BLEEndpoint(serviceUUID: serviceUUID, mode: bleMode, ident: security.bleIdent)
        return (HolderEngagement(deviceEngagement: engagement, uri: uri, qrCode: qr, endpoint: endpoint), key)
    }

    /// A version 4 UUID from the injected random source (RFC 9562 §5.4).
    private func uuidBytes() -> uuid_t {
        var b = Array(random.bytes(16))
        b[6] = (b[6] & 0x0f) | 0x40
        b[8] = (b[8] & 0x3f) | 0x80
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }

    /// Decodes SessionEstablishment, builds the SessionTranscript from the engagement bytes and EReaderKey bytes as
    /// received (QR handover, §9.1.5.1), derives the session keys (§9.1.1.5) and decrypts the DeviceRequest.
    /// Throws ``HolderSessionError/sessionEncryption`` or ``HolderSessionError/invalidRequest(_:)`` as §9.1.1.4 asks.
    nonisolated(nonsending) public func processSessionEstablishment(incoming: Data, in session: HolderSession)
        async throws(HolderSessionError) -> DeviceRequest
    {
        guard let engagement = session.engagement, let eDeviceKey = session.keys?.eDeviceKey else {
            throw .mutatorNotAllowed(property: "sessionEncryption", in: session.state.phase)
        }
        let establishment: SessionEstablishment
        let encryption: SessionEncryption
        let transcript: SessionTranscript
        do {
            establishment = try SessionEstablishment(bytes: incoming)
            transcript = SessionTranscript(
                deviceEngagementBytes: engagement.deviceEngagement.bytes, eReaderKeyBytes: establishment.eReaderKey.bytes,
                handover: .qr)
            encryption = try SessionEncryption(
                role: .mdoc, privateKey: eDeviceKey, peerPublicKey: COSEKey(cbor: establishment.eReaderKey.value),
                sessionTranscript: transcript)
        } catch let error as MDocError {
            throw .invalidRequest(error)
        } catch {
            throw .invalidRequest(.invalidStructure(structure: "EReaderKey", reason: "\(error)"))
        }
        try session.setSessionEncryption(encryption, sessionTranscript: transcript)
        let plaintext: Data
        do {
            plaintext = try encryption.decrypt(establishment.data)
        } catch {
            throw .sessionEncryption
        }
        do {
            return try DeviceRequest(bytes: plaintext)
        } catch {
            throw .invalidRequest(error)
        }
    }

    /// Generates the DeviceResponse for the consented items with `DeviceResponseGenerator` (issuer-signed items as
    /// issued, DeviceSigned by the credential's device key) and encrypts it into SessionData.
    nonisolated(nonsending) public func generateDeviceSigned(items: ConsentSelection, in session: HolderSession, terminate: Bool)
        async throws(HolderSessionError) -> Data
    {
        guard let request = session.request, let keys = session.keys, let encryption = keys.encryption,
            let transcript = keys.sessionTranscript
        else {
            throw .mutatorNotAllowed(property: "response", in: session.state.phase)
        }
        do {
            let response = try await DeviceResponseGenerator.generate(
                request: request.deviceRequest, credentials: [session.credential], selection: items,
                sessionTranscript: transcript, mode: deviceAuthentication)
            let ciphertext = try encryption.encrypt(response.encoded())
            return try SessionData(data: ciphertext, status: terminate ? .sessionTermination : nil).encoded()
        } catch {
            if case .deviceKeyFailure(let reason) = error { throw .deviceKey(reason) }
            throw .responseGeneration(error)
        }
    }
}
