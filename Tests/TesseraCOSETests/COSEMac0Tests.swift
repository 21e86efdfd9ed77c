import Crypto
import Foundation
import TesseraCBOR
import Testing

@testable import TesseraCOSE

@Suite("COSE_Mac0 create / verify")
struct COSEMac0Tests {
    let payload = Data("mdoc device authentication".utf8)
    let aad = Data([0xff, 0x00, 0xee])
    let key = SymmetricKey(size: .bits256)

    @Test("attached and detached, with external AAD; tampering fails")
    func roundTrip() throws {
        for detached in [false, true] {
            let created = try COSEMac0.create(
                payload: payload, key: key, unprotected: COSEHeaders(keyID: Data("k1".utf8)), externalAAD: aad,
                detached: detached)
            #expect(created.tag.count == 32)
            #expect(created.protected.rawBytes == Data([0xa1, 0x01, 0x05]))
            let bytes = created.encoded()
            #expect(bytes.first == 0xd1)  // tag 17
            let message = try COSEMac0(bytes: bytes)
            #expect(message == created)
            let supplied: Data? = detached ? payload : nil
            #expect(coseError { try message.verify(key: key, externalAAD: aad, detachedPayload: supplied) } == nil)
            #expect(coseError { try message.verify(key: key, detachedPayload: supplied) } == .macInvalid)
            #expect(
                coseError { try message.verify(key: SymmetricKey(size: .bits256), externalAAD: aad, detachedPayload: supplied) }
                    == .macInvalid)
            if detached {
                #expect(message.payload == nil)
                #expect(coseError { try message.verify(key: key, externalAAD: aad) } == .detachedPayloadRequired)
                #expect(
                    coseError { try message.verify(key: key, externalAAD: aad, detachedPayload: payload + [0]) }
                        == .macInvalid)
            } else {
                let tampered = try COSEMac0(
                    protected: message.protected, unprotected: message.unprotected, payload: payload + [0],
                    tag: message.tag)
                #expect(coseError { try tampered.verify(key: key, externalAAD: aad) } == .macInvalid)
                #expect(
                    coseError { try message.verify(key: key, externalAAD: aad, detachedPayload: payload) }
                        == .payloadNotDetached)
            }
            // A truncated tag is refused.
            let truncated = try COSEMac0(
                protected: message.protected, unprotected: message.unprotected, payload: message.payload,
                tag: message.tag.prefix(16))
            #expect(coseError { try truncated.verify(key: key, externalAAD: aad, detachedPayload: supplied) } == .macInvalid)
        }
    }

    @Test("keys: Symmetric COSE_Key works; short keys and non-HMAC algorithms are refused")
    func keysAndAlgorithms() throws {
        let coseKey = COSEKey(key, keyID: Data("our-secret".utf8))
        let reread = try COSEKey(bytes: coseKey.encoded())
        #expect(reread == coseKey)
        let created = try COSEMac0.create(payload: payload, key: reread)
        #expect(coseError { try created.verify(key: coseKey) } == nil)

        let short = SymmetricKey(size: .bits128)
        if case .invalidKey? = coseError({ _ = try COSEMac0.create(payload: payload, key: short) }) {} else {
            Issue.record("16-byte HMAC key accepted")
        }
        if case .invalidKey? = coseError({ try created.verify(key: short) }) {} else {
            Issue.record("16-byte HMAC key accepted")
        }
        #expect(
            coseError { _ = try COSEMac0.create(payload: payload, key: key, protected: COSEHeaders(algorithm: .es256)) }
                == .algorithmMismatch(.es256, key: "symmetric"))
        let es256Protected = COSEProtectedHeader(COSEHeaders(algorithm: .es256))
        let wrongAlg = try COSEMac0(protected: es256Protected, payload: payload, tag: created.tag)
        #expect(coseError { try wrongAlg.verify(key: key) } == .algorithmMismatch(.es256, key: "symmetric"))
        // An EC key is not a MAC key.
        let ecKey = COSEKey(P256.Signing.PrivateKey())
        if case .invalidKey? = coseError({ try created.verify(key: ecKey) }) {} else {
            Issue.record("EC key accepted for HMAC")
        }
    }

    @Test("tags: 17 or untagged")
    func tags() throws {
        let created = try COSEMac0.create(payload: payload, key: key)
        #expect(try COSEMac0(bytes: created.encoded(tagged: false)) == created)
        #expect(coseError { _ = try COSEMac0(bytes: created.encoded(tagged: false), tag: .required) } == .missingTag(expected: 17))
        #expect(coseError { _ = try COSESign1(bytes: created.encoded()) } == .wrongTag(found: 17, expected: 18))
        let three: CBOR = [.bytes(Data()), [:], .null]
        if case .notCOSEMac0? = coseError({ _ = try COSEMac0(cbor: three) }) {} else {
            Issue.record("3-element array accepted")
        }
    }
}
