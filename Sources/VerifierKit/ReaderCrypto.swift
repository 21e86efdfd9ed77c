import Foundation
import MDoc
import ProximityTransport
import TesseraCBOR
import TesseraCOSE
import TesseraCore

/// The reader's certificate and key, for ReaderAuth (§9.1.4).
public struct ReaderIdentity: Sendable {
    /// The reader key that signs ReaderAuth (a COSE_Sign1 over ReaderAuthentication, §9.1.4).
    public var signingKey: COSESigningKey
    /// x5chain, leaf first, DER.
    public var certificateChain: [Data]
    /// An identity from the reader key and its certificate chain (Annex B reader profile), leaf first.
    public init(signingKey: COSESigningKey, certificateChain: [Data]) {
        self.signingKey = signingKey
        self.certificateChain = certificateChain
    }
}

/// The reader's session cryptography: engagement processing, SessionEstablishment, SessionData.
public struct ReaderCrypto: Sendable {
    /// The source of EReaderKey (injected, ARCHITECTURE.md decision 5).
    public var random: any RandomSource
    /// The identity that signs ReaderAuth (§9.1.4); nil sends requests without it (`readerAuth` is optional in a
    /// DocRequest, §8.3.2.1.2.1).
    public var readerIdentity: ReaderIdentity?

    /// Reader cryptography with system randomness and no ReaderAuth by default.
    public init(random: any RandomSource = SystemRandomSource(), readerIdentity: ReaderIdentity? = nil) {
        self.random = random
        self.readerIdentity = readerIdentity
    }

    /// Reads the scanned `mdoc:` URI (§8.2.2.3), picks its BLE retrieval method, derives EReaderKey, the
    /// SessionTranscript (QR handover) and the session keys, and stores them in the session.
    public func processEngagement(_ scanned: String, in session: VerifierSession) throws(VerifierSessionError) {
        let parsed: (bytes: Data, engagement: DeviceEngagement)
        do {
            parsed = try MDocQRCode.parse(scanned)
        } catch {
            throw .invalidFormat("not an mdoc device engagement: \(error)")
        }
        guard let endpoint = Self.endpoint(parsed.engagement) else {
            throw .invalidFormat("the engagement offers no BLE retrieval with a service UUID")
        }
        do {
            // EReaderKey must be on the curve of EDeviceKey (§9.1.5.2).
            let eDeviceKey = try parsed.engagement.security.eDeviceKey()
            guard case .ec2(let curve, _, _, _) = eDeviceKey.material else {
                throw VerifierSessionError.invalidFormat("EDeviceKey is not an EC2 key")
            }
            let eReaderKey = try EphemeralPrivateKey.generate(curve: curve, random: random)
            let eReaderKeyBytes = try EncodedCBOR<CBOR>(encoding: eReaderKey.publicCOSEKey.cbor)
            let transcript = SessionTranscript(
                deviceEngagementBytes: parsed.bytes, eReaderKeyBytes: eReaderKeyBytes.bytes, handover: .qr)
            let encryption = try SessionEncryption(
                role: .mdocReader, privateKey: eReaderKey, peerPublicKey: eDeviceKey,
                sessionTranscript: transcript)
            try session.setEngagement(
                ReaderSessionKeys(
                    deviceEngagementBytes: parsed.bytes, endpoint: endpoint, eReaderKey: eReaderKey, encryption: encryption,
                    sessionTranscript: transcript))
        } catch let error as VerifierSessionError {
            throw error
        } catch {
            throw .invalidFormat("unusable EDeviceKey: \(error)")
        }
    }

    /// The BLE endpoint of the first BLE method: peripheral server mode preferred (the QR default).
    static func endpoint(_ engagement: DeviceEngagement) -> BLEEndpoint? {
        for method in engagement.deviceRetrievalMethods {
            guard case .ble(let options) = method.options else { continue }
            if options.supportsPeripheralServerMode, let uuid = options.peripheralServerModeUUID {
                return BLEEndpoint(serviceUUID: uuid, mode: .mdocPeripheralServer, ident: engagement.security.bleIdent)
            }
            if options.supportsCentralClientMode, let uuid = options.centralClientModeUUID {
                return BLEEndpoint(serviceUUID: uuid, mode: .mdocCentralClient, ident: engagement.security.bleIdent)
            }
        }
        return nil
    }

    /// SessionEstablishment with EReaderKey and the encrypted DeviceRequest (ReaderAuth when configured).
    public func sessionEstablishment(in session: VerifierSession) throws(VerifierSessionError) -> Data {
        guard let keys = session.keys, let eReaderKey = keys.eReaderKey, let encryption = keys.encryption else {
            throw .mutatorNotAllowed(property: "deviceRequest", in: session.state.phase)
        }
        do {
            let items = try EncodedCBOR(encoding: session.request.itemsRequest)
            var readerAuth: COSESign1?
            if let identity = readerIdentity {
                readerAuth = try ReaderAuthentication.sign(
                    itemsRequest: items, sessionTranscript: keys.sessionTranscript, readerKey: identity.signingKey,
                    certificateChain: identity.certificateChain)
            }
            let request = DeviceRequest(docRequests: [DocRequest(itemsRequest: items, readerAuth: readerAuth)])
            try session.setDeviceRequest(request)
            let eReaderKeyBytes = try EncodedCBOR<CBOR>(encoding: eReaderKey.publicCOSEKey.cbor)
            return try SessionEstablishment(eReaderKey: eReaderKeyBytes, data: encryption.encrypt(request.encoded())).encoded()
        } catch let error as VerifierSessionError {
            throw error
        } catch let error as MDocError {
            throw .requestFailed(error)
        } catch {
            throw .requestFailed(.invalidStructure(structure: "DeviceRequest", reason: "\(error)"))
        }
    }

    /// Reads the holder's SessionData: the decrypted DeviceResponse, and whether the holder ended the session.
    public func openSessionData(_ bytes: Data, in session: VerifierSession) throws(VerifierSessionError) -> (DeviceResponse, ended: Bool) {
        guard let encryption = session.keys?.encryption else {
            throw .mutatorNotAllowed(property: "response", in: session.state.phase)
        }
        let message: SessionData
        do {
            message = try SessionData(bytes: bytes)
        } catch {
            throw .invalidResponse(error)
        }
        guard let ciphertext = message.data else {
            if let status = message.status, status != SessionData.Status.sessionTermination.rawValue {
                throw .holderReportedError(status: status)
            }
            throw .holderTerminated
        }
        let plaintext: Data
        do {
            plaintext = try encryption.decrypt(ciphertext)
        } catch {
            throw .sessionEncryption
        }
        do {
            return (try DeviceResponse(bytes: plaintext), message.status == SessionData.Status.sessionTermination.rawValue)
        } catch {
            throw .invalidResponse(error)
        }
    }

    /// SessionData with status 20: the reader ends the session (§9.1.1.4).
    public static func termination() -> Data? { try? SessionData(status: .sessionTermination).encoded() }
}
