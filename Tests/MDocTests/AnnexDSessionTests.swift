import Crypto
import Foundation
import Testing
import TesseraCBOR
import TesseraCOSE
@testable import MDoc

/// Annex D D.2–D.5 reproduced byte for byte: engagement, transcript, session keys and messages.
@Suite struct AnnexDSessionTests {
    let transcript: SessionTranscript
    let establishment: SessionEstablishment

    init() throws {
        transcript = try SessionTranscript(taggedBytes: AnnexD.bytes("SessionTranscriptBytes"))
        establishment = try SessionEstablishment(bytes: AnnexD.bytes("SessionEstablishment"))
    }

    @Test func deviceEngagementDecodes() throws {
        let bytes = AnnexD.bytes("DeviceEngagement")
        let engagement = try DeviceEngagement(bytes: bytes)
        #expect(engagement.version == "1.0")
        #expect(engagement.security.cipherSuiteIdentifier == 1)
        #expect(engagement.security.eDeviceKeyBytes.bytes == AnnexD.bytes("EDeviceKeyBytes").dropFirst(4))
        guard case .ble(let ble) = engagement.deviceRetrievalMethods.first?.options else {
            Issue.record("no BLE retrieval method")
            return
        }
        #expect(!ble.supportsPeripheralServerMode && ble.supportsCentralClientMode)
        #expect(ble.centralClientModeUUID == UUID(uuidString: "45EFEF74-2B2C-4837-A9A3-B0E1D05A6917"))
        // Rebuilt from the model, the engagement has the same bytes (it was deterministic already).
        #expect(engagement.cbor.encoded() == bytes)
        let key = try engagement.security.eDeviceKey()
        #expect(try P256.KeyAgreement.PublicKey(coseKey: key).rawRepresentation == AnnexD.p256Private("eDeviceKey_d").publicKey.rawRepresentation)
    }

    @Test func qrURIRoundTripsTheExactBytes() throws {
        let bytes = AnnexD.bytes("DeviceEngagement")
        let uri = MDocQRCode.uri(for: bytes)
        #expect(uri.hasPrefix("mdoc:") && !uri.contains("="))
        let parsed = try MDocQRCode.parse(uri)
        #expect(parsed.bytes == bytes)
        #expect(throws: MDocError.self) { try MDocQRCode.parse("mdoc:" + String(uri.dropFirst(5)) + "!") }
        #expect(throws: MDocError.self) { try MDocQRCode.parse("https://example.com") }
    }

    @Test func sessionTranscriptRebuildsByteExact() throws {
        #expect(transcript.taggedBytes == AnnexD.bytes("SessionTranscriptBytes"))
        #expect(transcript.eReaderKeyBytes == establishment.eReaderKey.bytes)
        guard case .nfc(let select, let request?) = transcript.handover else {
            Issue.record("expected an NFC handover")
            return
        }
        #expect(select == AnnexD.bytes("NFC_HandoverSelect") && request == AnnexD.bytes("NFC_HandoverRequest"))
        let rebuilt = SessionTranscript(
            deviceEngagementBytes: transcript.deviceEngagementBytes, eReaderKeyBytes: establishment.eReaderKey.bytes,
            handover: .nfc(handoverSelect: select, handoverRequest: request))
        #expect(rebuilt.bytes == transcript.bytes)
        #expect(Data(SHA256.hash(data: transcript.taggedBytes)) == AnnexD.bytes("HKDF_Salt_SHA256_SessionTranscriptBytes"))
    }

    @Test func holderDecryptsTheRequestAndEncryptsTheResponseByteExact() throws {
        let holder = try SessionEncryption(
            role: .mdoc, privateKey: .p256(AnnexD.p256Private("eDeviceKey_d")),
            peerPublicKey: COSEKey(cbor: establishment.eReaderKey.value), sessionTranscript: transcript)
        #expect(try holder.decrypt(establishment.data) == AnnexD.bytes("DeviceRequest"))
        let sessionData = try SessionData(bytes: AnnexD.bytes("SessionData"))
        #expect(try holder.encrypt(AnnexD.bytes("DeviceResponse")) == sessionData.data)
    }

    @Test func readerEncryptsTheRequestAndDecryptsTheResponse() throws {
        let engagement = try DeviceEngagement(bytes: try #require(transcript.deviceEngagementBytes))
        let reader = try SessionEncryption(
            role: .mdocReader, privateKey: .p256(AnnexD.p256Private("eReaderKey_d")),
            peerPublicKey: engagement.security.eDeviceKey(), sessionTranscript: transcript)
        #expect(try reader.encrypt(AnnexD.bytes("DeviceRequest")) == establishment.data)
        let sessionData = try SessionData(bytes: AnnexD.bytes("SessionData"))
        #expect(try reader.decrypt(try #require(sessionData.data)) == AnnexD.bytes("DeviceResponse"))
    }

    @Test func sessionKeysMatchTheVectors() throws {
        let shared = try EphemeralPrivateKey.p256(AnnexD.p256Private("eDeviceKey_d"))
            .sharedSecret(with: COSEKey(cbor: establishment.eReaderKey.value))
        #expect(shared.withUnsafeBytes { Data($0) } == AnnexD.bytes("ECDH_SharedSecret_Z"))
        let salt = Data(SHA256.hash(data: transcript.taggedBytes))
        let skReader = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Data("SKReader".utf8), outputByteCount: 32)
        #expect(skReader.withUnsafeBytes { Data($0) } == AnnexD.bytes("SKReader"))
    }

    @Test func tamperedOrReplayedMessagesFailWithStatus10Error() throws {
        let holder = try SessionEncryption(
            role: .mdoc, privateKey: .p256(AnnexD.p256Private("eDeviceKey_d")),
            peerPublicKey: COSEKey(cbor: establishment.eReaderKey.value), sessionTranscript: transcript)
        var tampered = establishment.data
        tampered[tampered.startIndex + 3] ^= 1
        #expect(throws: MDocError.sessionDecryptionFailed) { try holder.decrypt(tampered) }
        #expect(try holder.decrypt(establishment.data) == AnnexD.bytes("DeviceRequest"))
        // The same message again would reuse counter 1: it does not decrypt under counter 2.
        #expect(throws: MDocError.sessionDecryptionFailed) { try holder.decrypt(establishment.data) }
        #expect(throws: MDocError.sessionDecryptionFailed) { try holder.decrypt(Data([1, 2, 3])) }
    }

    @Test func emacKeyAndDeviceMacTagReproduce() throws {
        let staticKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: AnnexD.bytes("SDeviceKey_d"))
        let readerPublic = try P256.KeyAgreement.PublicKey(coseKey: COSEKey(cbor: establishment.eReaderKey.value))
        let shared = try staticKey.sharedSecretFromKeyAgreement(with: readerPublic)
        let emac = EMacKey.derive(sharedSecret: shared, sessionTranscript: transcript)
        #expect(emac.withUnsafeBytes { Data($0) } == AnnexD.bytes("EMacKey"))
        // The reader derives the same key from its side.
        let readerSide = try EMacKey.derive(
            readerKey: .p256(AnnexD.p256Private("eReaderKey_d")), deviceKey: COSEKey(staticKey.publicKey),
            sessionTranscript: transcript)
        #expect(readerSide.withUnsafeBytes { Data($0) } == AnnexD.bytes("EMacKey"))
    }

    @Test func sessionTerminationIsStatus20() throws {
        let termination = try SessionData(bytes: AnnexD.bytes("SessionTermination"))
        #expect(termination.status == 20 && termination.data == nil)
        #expect(try SessionData(status: .sessionTermination).encoded() == AnnexD.bytes("SessionTermination"))
    }
}
