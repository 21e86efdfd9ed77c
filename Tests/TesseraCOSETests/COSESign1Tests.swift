import Crypto
import Foundation
import TesseraCBOR
import Testing

@testable import TesseraCOSE

@Suite("COSE_Sign1 sign / verify")
struct COSESign1Tests {
    static let signers: [String] = ["ES256", "ES384", "ES512", "EdDSA"]

    static func signingKey(_ name: String) throws -> COSESigningKey {
        switch name {
        case "ES256": return .p256(P256.Signing.PrivateKey())
        case "ES384": return .p384(P384.Signing.PrivateKey())
        case "ES512": return .p521(P521.Signing.PrivateKey())
        case "EdDSA": return .ed25519(Curve25519.Signing.PrivateKey())
        default: throw FixtureError.missing(name)
        }
    }

    let payload = Data("The quick brown fox".utf8)
    let aad = Data([0x11, 0xaa, 0x22, 0xbb])

    @Test("Sig_structure and MAC_structure written in one buffer are the deterministic array at every bstr head size")
    func toBeSignedStructures() {
        for count in [0, 23, 24, 255, 256, 65_535, 65_536] {
            let payload = Data(repeating: 0x5a, count: count)
            let protected = Data([0xa1, 0x01, 0x26])
            let aad = Data(repeating: 0x01, count: count / 2)
            #expect(COSEToBeSigned.signature1(bodyProtected: protected, externalAAD: aad, payload: payload)
                == CBOR.array(["Signature1", .bytes(protected), .bytes(aad), .bytes(payload)]).encoded(options: .deterministic))
            #expect(COSEToBeSigned.mac0(protected: protected, externalAAD: aad, payload: payload)
                == CBOR.array(["MAC0", .bytes(protected), .bytes(aad), .bytes(payload)]).encoded(options: .deterministic))
        }
    }

    @Test("attached payload with external AAD: round trip, tampering fails", arguments: signers)
    func attached(_ alg: String) throws {
        let key = try Self.signingKey(alg)
        let signed = try COSESign1.sign(
            payload: payload, with: key, unprotected: COSEHeaders(keyID: Data("kid-1".utf8)), externalAAD: aad)
        #expect(signed.signature.count == key.algorithm.outputLength)
        #expect(try signed.protected.headers.algorithm == key.algorithm)

        let bytes = signed.encoded()
        #expect(bytes.first == 0xd2)  // tag 18
        let message = try COSESign1(bytes: bytes, tag: .required)
        #expect(message == signed)
        #expect(message.unprotected.keyID == Data("kid-1".utf8))
        let verifier = key.verificationKey
        #expect(coseError { try message.verify(with: verifier, externalAAD: aad) } == nil)

        // External AAD is covered.
        #expect(coseError { try message.verify(with: verifier) } == .signatureInvalid)
        #expect(coseError { try message.verify(with: verifier, externalAAD: aad + [0]) } == .signatureInvalid)
        // Payload is covered.
        let tamperedPayload = try COSESign1(
            protected: message.protected, unprotected: message.unprotected, payload: payload + [0x21],
            signature: message.signature)
        #expect(coseError { try tamperedPayload.verify(with: verifier, externalAAD: aad) } == .signatureInvalid)
        // Protected bytes are covered: same map content, other bytes (alg written in 2 bytes).
        let rawAlg = Data([0xa1, 0x01]) + CBOR.int(key.algorithm.rawValue).encoded()
        #expect(rawAlg == message.protected.rawBytes)
        let longForm = Data([0xa2, 0x01]) + CBOR.int(key.algorithm.rawValue).encoded() + Data([0x03, 0x00])
        let tamperedProtected = try COSESign1(
            protected: COSEProtectedHeader(rawBytes: longForm), unprotected: message.unprotected, payload: payload,
            signature: message.signature)
        #expect(coseError { try tamperedProtected.verify(with: verifier, externalAAD: aad) } == .signatureInvalid)
        // Signature is covered.
        var badSignature = message.signature
        badSignature[badSignature.startIndex + 5] ^= 0x40
        let tamperedSignature = try COSESign1(
            protected: message.protected, unprotected: message.unprotected, payload: payload, signature: badSignature)
        #expect(coseError { try tamperedSignature.verify(with: verifier, externalAAD: aad) } == .signatureInvalid)
        // Another key of the same curve does not verify it.
        let other = try Self.signingKey(alg).verificationKey
        #expect(coseError { try message.verify(with: other, externalAAD: aad) } == .signatureInvalid)
    }

    @Test("detached payload: nil on the wire, supplied to verify", arguments: signers)
    func detached(_ alg: String) throws {
        let key = try Self.signingKey(alg)
        let signed = try COSESign1.sign(payload: payload, with: key, externalAAD: aad, detached: true)
        #expect(signed.payload == nil)
        let message = try COSESign1(bytes: signed.encoded(tagged: false), tag: .forbidden)
        #expect(message.payload == nil)
        let verifier = key.verificationKey
        #expect(coseError { try message.verify(with: verifier, externalAAD: aad, detachedPayload: payload) } == nil)
        #expect(coseError { try message.verify(with: verifier, externalAAD: aad) } == .detachedPayloadRequired)
        #expect(
            coseError { try message.verify(with: verifier, externalAAD: aad, detachedPayload: payload + [1]) }
                == .signatureInvalid)
        // An attached message refuses a second, detached payload.
        let attached = try COSESign1.sign(payload: payload, with: key)
        #expect(coseError { try attached.verify(with: verifier, detachedPayload: payload) } == .payloadNotDetached)
    }

    @Test("a DER signature is rejected with .derSignatureRejected")
    func derSignatureRejected() throws {
        let key = P256.Signing.PrivateKey()
        let signed = try COSESign1.sign(payload: payload, with: .p256(key))
        let der = try P256.Signing.ECDSASignature(rawRepresentation: signed.signature).derRepresentation
        #expect(der.count != 64)
        let withDER = try COSESign1(
            protected: signed.protected, unprotected: signed.unprotected, payload: signed.payload, signature: der)
        #expect(coseError { try withDER.verify(with: .p256(key.publicKey)) } == .derSignatureRejected)
        // A wrong-length signature that is not DER gets the length error.
        let short = try COSESign1(
            protected: signed.protected, unprotected: signed.unprotected, payload: signed.payload,
            signature: signed.signature.prefix(63))
        #expect(coseError { try short.verify(with: .p256(key.publicKey)) } == .signatureLengthInvalid(expected: 64, found: 63))
    }

    @Test("alg must match the key's curve; alg must be protected by default")
    func algorithmRules() throws {
        let p256 = P256.Signing.PrivateKey()
        let signed = try COSESign1.sign(payload: payload, with: .p256(p256))
        let p384 = P384.Signing.PrivateKey().publicKey
        #expect(coseError { try signed.verify(with: .p384(p384)) } == .algorithmMismatch(.es256, key: "P-384"))
        let ed = Curve25519.Signing.PrivateKey().publicKey
        #expect(coseError { try signed.verify(with: .ed25519(ed)) } == .algorithmMismatch(.es256, key: "Ed25519"))

        // Signing with a protected alg that is not the key's.
        #expect(
            coseError { _ = try COSESign1.sign(payload: payload, with: .p256(p256), protected: COSEHeaders(algorithm: .es512)) }
                == .algorithmMismatch(.es512, key: "P-256"))
        // A COSE_Key restricted to its own curve's algorithm verifies; another one is refused when made.
        let restricted = try COSEKey(material: COSEKey(p256.publicKey).material, algorithm: .es256)
        #expect(coseError { try signed.verify(with: restricted) } == nil)
        #expect(
            coseError { _ = try COSEKey(material: restricted.material, algorithm: .es512) }
                == .algorithmMismatch(.es512, key: "P-256"))

        // No alg in protected: missing by default, accepted from unprotected when allowed.
        let toBeSigned = COSEToBeSigned.signature1(bodyProtected: Data(), externalAAD: Data(), payload: payload)
        let unprotectedAlg = try COSESign1(
            protected: .empty, unprotected: COSEHeaders(algorithm: .es256), payload: payload,
            signature: COSESigningKey.p256(p256).sign(toBeSigned))
        #expect(coseError { try unprotectedAlg.verify(with: .p256(p256.publicKey)) } == .missingAlgorithm)
        #expect(
            coseError { try unprotectedAlg.verify(with: .p256(p256.publicKey), options: .allowingUnprotectedAlgorithm) }
                == nil)
        // HMAC is not a signature algorithm.
        let hmacProtected = COSEProtectedHeader(COSEHeaders(algorithm: .hmac256))
        let macAlg = try COSESign1(protected: hmacProtected, payload: payload, signature: Data(count: 64))
        #expect(coseError { try macAlg.verify(with: .p256(p256.publicKey)) } == .algorithmMismatch(.hmac256, key: "P-256"))
    }

    @Test("a label in both buckets is rejected when building and when reading")
    func duplicateLabels() throws {
        let key = COSESigningKey.p256(P256.Signing.PrivateKey())
        #expect(
            coseError { _ = try COSESign1.sign(payload: payload, with: key, unprotected: COSEHeaders(algorithm: .es256)) }
                == .duplicateHeaderLabel(.algorithm))
        // [h'a20126044131', {4: h'31'}, payload, sig] — kid in both buckets.
        let protected = try COSEProtectedHeader(rawBytes: Data([0xa2, 0x01, 0x26, 0x04, 0x41, 0x31]))
        let wire = CBOR.array([protected.cbor, [4: .bytes(Data([0x31]))], .bytes(payload), .bytes(Data(count: 64))])
        #expect(coseError { _ = try COSESign1(cbor: wire) } == .duplicateHeaderLabel(.keyID))
    }

    @Test("tags: 18 or untagged; other tags, missing or unexpected tags are typed errors")
    func tags() throws {
        let signed = try COSESign1.sign(payload: payload, with: .p256(P256.Signing.PrivateKey()))
        let tagged = signed.encoded()
        let untagged = signed.encoded(tagged: false)
        #expect(tagged.first == 0xd2 && untagged.first == 0x84)
        #expect(try COSESign1(bytes: untagged) == signed)
        #expect(coseError { _ = try COSESign1(bytes: untagged, tag: .required) } == .missingTag(expected: 18))
        #expect(coseError { _ = try COSESign1(bytes: tagged, tag: .forbidden) } == .unexpectedTag(18))
        #expect(coseError { _ = try COSEMac0(bytes: tagged) } == .wrongTag(found: 18, expected: 17))
        #expect(coseError { _ = try COSESign1(cbor: .tagged(98, signed.cbor(tagged: false))) } == .wrongTag(found: 98, expected: 18))
        #expect(signed.cbor().encoded(options: .preserving) == tagged)
    }

    @Test("malformed input gives typed errors")
    func malformed() throws {
        let signed = try COSESign1.sign(payload: payload, with: .p256(P256.Signing.PrivateKey())).encoded()
        if case .malformed(.trailingBytes)? = coseError({ _ = try COSESign1(bytes: signed + [0x00]) }) {} else {
            Issue.record("trailing bytes not reported")
        }
        if case .malformed? = coseError({ _ = try COSESign1(bytes: signed.dropLast()) }) {} else {
            Issue.record("truncated input not reported")
        }
        let three: CBOR = [.bytes(Data()), [:], .null]
        #expect(coseError { _ = try COSESign1(cbor: three) } == .notCOSESign1("expected an array of 4 elements, found 3"))
        let textPayload: CBOR = [.bytes(Data()), [:], "text", .bytes(Data())]
        if case .notCOSESign1? = coseError({ _ = try COSESign1(cbor: textPayload) }) {} else {
            Issue.record("text payload accepted")
        }
        let protectedMap: CBOR = [[1: -7], [:], .null, .bytes(Data())]
        if case .notCOSESign1? = coseError({ _ = try COSESign1(cbor: protectedMap) }) {} else {
            Issue.record("protected map not in a bstr accepted")
        }
        let notMap: CBOR = [.bytes(Data([0x01])), [:], .null, .bytes(Data())]
        #expect(coseError { _ = try COSESign1(cbor: notMap) } == .protectedHeaderNotAMap)
        let badLabel: CBOR = [.bytes(Data()), [.bytes(Data([1])): 1], .null, .bytes(Data())]
        #expect(coseError { _ = try COSESign1(cbor: badLabel) } == .invalidHeaderLabel("byte string"))
        let badKid: CBOR = [.bytes(Data()), [4: "kid"], .null, .bytes(Data())]
        if case .invalidHeaderValue(let label, _)? = coseError({ _ = try COSESign1(cbor: badKid) }) {
            #expect(label == .keyID)
        } else {
            Issue.record("text kid accepted")
        }
    }

    @Test("crit: unknown critical labels are rejected unless understood; crit must be protected")
    func critical() throws {
        let key = P256.Signing.PrivateKey()
        var protected = COSEHeaders(algorithm: .es256)
        try protected.set([99, 4], for: .critical)
        try protected.set("x", for: 99)
        let signed = try COSESign1.sign(payload: payload, with: .p256(key), protected: protected)
        #expect(signed.protected.headers.criticalLabels == [99, 4])
        #expect(coseError { try signed.verify(with: .p256(key.publicKey)) } == .unknownCriticalHeader(99))
        let options = COSEVerificationOptions(understoodCriticalLabels: [99])
        #expect(coseError { try signed.verify(with: .p256(key.publicKey), options: options) } == nil)

        var unprotected = COSEHeaders()
        try unprotected.set([4], for: .critical)
        if case .invalidHeaderValue(.critical, _)? = coseError({
            _ = try COSESign1.sign(payload: payload, with: .p256(key), unprotected: unprotected)
        }) {} else {
            Issue.record("crit in the unprotected bucket accepted")
        }
        var empty = COSEHeaders()
        if case .invalidHeaderValue(.critical, _)? = coseError({ try empty.set([], for: .critical) }) {} else {
            Issue.record("empty crit accepted")
        }
    }
}
