import Crypto
import Foundation
import TesseraCBOR
import Testing
import X509

@testable import TesseraCOSE

/// ISO/IEC 18013-5:2021 Annex D worked example (Fixtures/iso18013-5-annex-d.json).
@Suite("ISO/IEC 18013-5 Annex D")
struct AnnexDTests {
    let annexD: AnnexDFile

    init() throws {
        annexD = try Fixtures.load(AnnexDFile.self, from: "iso18013-5-annex-d.json")
    }

    func publicKey(ofCertificate name: String) throws -> P256.Signing.PublicKey {
        let cert = try Certificate(derEncoded: Array(annexD.bytes(name)))
        return try #require(P256.Signing.PublicKey(cert.publicKey), "\(name) has no P-256 key")
    }

    @Test("IssuerAuth (D.5.2) verifies with the Document Signer certificate key; x5chain is that certificate")
    func issuerAuth() throws {
        let message = try COSESign1(bytes: annexD.bytes("IssuerAuth_COSE_Sign1"))
        #expect(try message.algorithm() == .es256)
        #expect(message.unprotected.x5chain == [try annexD.bytes("DocumentSignerCertificate")])
        #expect(message.payload == (try annexD.bytes("MobileSecurityObjectBytes")))
        let key = try publicKey(ofCertificate: "DocumentSignerCertificate")
        #expect(coseError { try message.verify(with: .p256(key)) } == nil)
        // Sent untagged, and re-emitted byte for byte.
        #expect(message.encoded(tagged: false) == (try annexD.bytes("IssuerAuth_COSE_Sign1")))
        // A key from another certificate does not verify it.
        let readerKey = try publicKey(ofCertificate: "ReaderCertificate")
        #expect(coseError { try message.verify(with: .p256(readerKey)) } == .signatureInvalid)
    }

    @Test("ReaderAuth (D.4.1.1) verifies with the reader certificate key over the detached ReaderAuthenticationBytes")
    func readerAuth() throws {
        let message = try COSESign1(bytes: annexD.bytes("ReaderAuth_COSE_Sign1"))
        #expect(message.payload == nil)
        #expect(message.unprotected.x5chain == [try annexD.bytes("ReaderCertificate")])
        let key = COSEVerificationKey.p256(try publicKey(ofCertificate: "ReaderCertificate"))
        let detached = try annexD.bytes("ReaderAuthenticationBytes")
        #expect(coseError { try message.verify(with: key, detachedPayload: detached) } == nil)
        #expect(coseError { try message.verify(with: key) } == .detachedPayloadRequired)
        var altered = detached
        altered[altered.count - 1] ^= 0x01
        #expect(coseError { try message.verify(with: key, detachedPayload: altered) } == .signatureInvalid)
    }

    @Test("DeviceMac (D.5.3): tag recomputed with EMacKey over the detached DeviceAuthenticationBytes")
    func deviceMac() throws {
        let response = try CBOR.decode(annexD.bytes("DeviceResponse"))
        let document = try #require(response["documents"]?.arrayValue?.first)
        let deviceMacItem = try #require(document["deviceSigned"]?["deviceAuth"]?["deviceMac"])
        let message = try COSEMac0(cbor: deviceMacItem, tag: .forbidden)
        #expect(message.payload == nil)
        #expect(message.protected.rawBytes == Data([0xa1, 0x01, 0x05]))

        let expectedTag = try annexD.bytes("DeviceMac_tag")
        let keyBytes = try annexD.bytes("EMacKey")
        let key = SymmetricKey(data: keyBytes)
        let detached = try annexD.bytes("DeviceAuthenticationBytes")

        // Recompute the tag over MAC_structure ["MAC0", h'a10105', h'', DeviceAuthenticationBytes].
        let toBeMACed = try message.toBeMACed(detachedPayload: detached)
        #expect(Data(HMAC<SHA256>.authenticationCode(for: toBeMACed, using: key)) == expectedTag)
        #expect(message.tag == expectedTag)
        // Creating it afresh gives the same message, byte for byte.
        let created = try COSEMac0.create(payload: detached, key: key, detached: true)
        #expect(created.tag == expectedTag)
        #expect(created.encoded(tagged: false) == deviceMacItem.encoded())

        #expect(coseError { try message.verify(key: key, detachedPayload: detached) } == nil)
        #expect(coseError { try message.verify(key: key) } == .detachedPayloadRequired)
        var wrongKey = keyBytes
        wrongKey[wrongKey.startIndex] ^= 0x01
        #expect(
            coseError { try message.verify(key: SymmetricKey(data: wrongKey), detachedPayload: detached) } == .macInvalid)
    }
}
