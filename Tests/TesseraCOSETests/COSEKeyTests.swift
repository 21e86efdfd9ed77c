import Crypto
import Foundation
import TesseraCBOR
import Testing

@testable import TesseraCOSE

@Suite("COSE_Key")
struct COSEKeyTests {
    @Test("round trip through CBOR and swift-crypto for each curve", arguments: COSECurve.allCases)
    func roundTrip(_ curve: COSECurve) throws {
        let kid = Data("key-\(curve.name)".utf8)
        let signing: COSESigningKey
        switch curve {
        case .p256: signing = .p256(P256.Signing.PrivateKey())
        case .p384: signing = .p384(P384.Signing.PrivateKey())
        case .p521: signing = .p521(P521.Signing.PrivateKey())
        case .ed25519: signing = .ed25519(Curve25519.Signing.PrivateKey())
        }
        let privateKey = signing.coseKey(keyID: kid)
        #expect(privateKey.curve == curve && privateKey.keyType == curve.keyType && privateKey.isPrivate)
        let encoded = privateKey.encoded()
        // Core deterministic: re-decoding in deterministic mode succeeds.
        #expect(throws: Never.self) { _ = try CBOR.decode(encoded, options: .deterministic) }
        let reread = try COSEKey(bytes: encoded)
        #expect(reread == privateKey)
        #expect(reread.keyID == kid)

        let publicKey = try reread.publicKey
        #expect(!publicKey.isPrivate)
        #expect(try COSEKey(bytes: publicKey.encoded()) == publicKey)
        #expect(publicKey == signing.verificationKey.coseKey(keyID: kid))

        // Back to swift-crypto: the same key material.
        let resigning = try COSESigningKey(reread)
        let reverifying = try COSEVerificationKey(publicKey)
        let message = try COSESign1.sign(payload: Data("hi".utf8), with: resigning)
        #expect(coseError { try message.verify(with: reverifying) } == nil)
        #expect(coseError { try message.verify(with: signing.verificationKey) } == nil)
        #expect(coseError { _ = try COSESigningKey(publicKey) } == .invalidKey("the key has no private part (d)"))

        // Coordinates of the exact length only.
        switch reread.material {
        case .ec2(_, let x, let y, let d):
            #expect(x.count == curve.coordinateLength && y.count == curve.coordinateLength)
            #expect(d?.count == curve.coordinateLength)
            let short = COSEKey.Material.ec2(curve: curve, x: x.dropFirst(), y: y, d: nil)
            #expect(
                coseError { _ = try COSEKey(material: short) }
                    == .invalidKey("x must be \(curve.coordinateLength) bytes for \(curve.name), found \(curve.coordinateLength - 1)"))
            let long = COSEKey.Material.ec2(curve: curve, x: x, y: Data([0]) + y, d: nil)
            if case .invalidKey? = coseError({ _ = try COSEKey(material: long) }) {} else { Issue.record("long y accepted") }
        case .okp(_, let x, _):
            let short = COSEKey.Material.okp(curve: curve, x: x.prefix(31), d: nil)
            #expect(coseError { _ = try COSEKey(material: short) } == .invalidKey("x must be 32 bytes for Ed25519, found 31"))
        case .symmetric:
            Issue.record("symmetric material for \(curve)")
        }
    }

    @Test("swift-crypto conversions: signing and key-agreement keys")
    func cryptoConversions() throws {
        let p256 = P256.KeyAgreement.PrivateKey()
        let cose = COSEKey(p256, keyID: Data([7]))
        #expect(try P256.KeyAgreement.PrivateKey(coseKey: cose).rawRepresentation == p256.rawRepresentation)
        #expect(try P256.KeyAgreement.PublicKey(coseKey: cose).x963Representation == p256.publicKey.x963Representation)
        #expect(try P256.Signing.PublicKey(coseKey: cose).x963Representation == p256.publicKey.x963Representation)
        #expect(COSEKey(p256.publicKey) == (try cose.publicKey).withoutKeyID)

        let p384 = P384.KeyAgreement.PrivateKey()
        #expect(try P384.KeyAgreement.PublicKey(coseKey: COSEKey(p384.publicKey)).rawRepresentation == p384.publicKey.rawRepresentation)
        #expect(try P384.Signing.PrivateKey(coseKey: COSEKey(p384)).rawRepresentation == p384.rawRepresentation)
        let p521 = P521.Signing.PrivateKey()
        #expect(try P521.KeyAgreement.PrivateKey(coseKey: COSEKey(p521)).rawRepresentation == p521.rawRepresentation)
        #expect(try P521.Signing.PublicKey(coseKey: COSEKey(p521.publicKey)).rawRepresentation == p521.publicKey.rawRepresentation)
        let ed = Curve25519.Signing.PrivateKey()
        #expect(try Curve25519.Signing.PrivateKey(coseKey: COSEKey(ed)).rawRepresentation == ed.rawRepresentation)
        #expect(try Curve25519.Signing.PublicKey(coseKey: COSEKey(ed.publicKey)).rawRepresentation == ed.publicKey.rawRepresentation)

        // Wrong curve or type for the requested swift-crypto key.
        if case .invalidKey? = coseError({ _ = try P384.Signing.PublicKey(coseKey: cose) }) {} else {
            Issue.record("P-256 key read as P-384")
        }
        if case .invalidKey? = coseError({ _ = try Curve25519.Signing.PublicKey(coseKey: cose) }) {} else {
            Issue.record("P-256 key read as Ed25519")
        }
        if case .invalidKey? = coseError({ _ = try SymmetricKey(coseKey: cose) }) {} else {
            Issue.record("P-256 key read as symmetric")
        }
    }

    @Test("a parsed EC2 key gives the point its check imported to key agreement, on each curve; equality ignores it")
    func parsedKeyAgreement() throws {
        let p256 = P256.KeyAgreement.PrivateKey(), p384 = P384.KeyAgreement.PrivateKey(), p521 = P521.KeyAgreement.PrivateKey()
        let parsed256 = try COSEKey(cbor: COSEKey(p256.publicKey).cbor)
        let parsed384 = try COSEKey(cbor: COSEKey(p384.publicKey).cbor)
        let parsed521 = try COSEKey(cbor: COSEKey(p521.publicKey).cbor)
        #expect(try P256.KeyAgreement.PublicKey(coseKey: parsed256).x963Representation == p256.publicKey.x963Representation)
        #expect(try P384.KeyAgreement.PublicKey(coseKey: parsed384).x963Representation == p384.publicKey.x963Representation)
        #expect(try P521.KeyAgreement.PublicKey(coseKey: parsed521).x963Representation == p521.publicKey.x963Representation)
        #expect(try P256.KeyAgreement.PublicKey(coseKey: parsed256.publicKey).x963Representation == p256.publicKey.x963Representation)
        #expect(parsed256 == COSEKey(p256.publicKey) && parsed256 != COSEKey(P256.KeyAgreement.PrivateKey().publicKey))
        // The imported point belongs to its curve: a P-256 key is still refused as P-384.
        if case .invalidKey? = coseError({ _ = try P384.KeyAgreement.PublicKey(coseKey: parsed256) }) {} else {
            Issue.record("P-256 key read as P-384")
        }
    }

    @Test("vector keys parse, match their JWK coordinates and re-encode byte for byte")
    func vectorKeys() throws {
        var seen = 0
        for file in ["sign1-tests.json", "ecdsa-examples.json", "eddsa-examples.json", "mac0-tests.json"] {
            for vector in try Fixtures.load(COSEVectorFile.self, from: file).cases {
                guard let key = vector.input.key, key.crv != "Ed448" else { continue }
                let coseKey = try COSEKey(bytes: Data(hex: key.cose_key_hex))
                switch coseKey.material {
                case .ec2(_, let x, let y, let d):
                    #expect(x.hex == key.x_hex && y.hex == key.y_hex && d?.hex == key.d_hex)
                case .okp(_, let x, let d):
                    #expect(x.hex == key.x_hex && d?.hex == key.d_hex)
                case .symmetric(let k):
                    #expect(k.hex == key.k_hex)
                }
                #expect(coseKey.encoded().hex == key.cose_key_hex, "\(vector.name)")
                seen += 1
            }
        }
        #expect(seen >= 20)
    }

    @Test("invalid keys are rejected with their rule")
    func invalidKeys() throws {
        let good = COSEKey(P256.Signing.PrivateKey())
        guard case .ec2(_, let x, let y, let d) = good.material else {
            Issue.record("not EC2")
            return
        }
        func key(_ entries: [(CBOR, CBOR)]) -> CBOR { .map(CBORMap(entries.map { CBORMap.Entry(key: $0.0, value: $0.1) })) }

        // Point not on the curve.
        var offCurveY = y
        offCurveY[offCurveY.startIndex + 31] ^= 0x01
        #expect(
            coseError { _ = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, .bytes(x)), (-3, .bytes(offCurveY))])) }
                == .invalidKey("the point is not on P-256"))
        // Compressed point (y as bool).
        if case .invalidKey(let why)? = coseError({ _ = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, .bytes(x)), (-3, true)])) }) {
            #expect(why.contains("compressed"))
        } else {
            Issue.record("compressed point accepted")
        }
        // d that does not belong to x, y.
        let otherD = try #require({ () -> Data? in
            if case .ec2(_, _, _, let d) = COSEKey(P256.Signing.PrivateKey()).material { return d }
            return nil
        }())
        #expect(
            coseError { _ = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, .bytes(x)), (-3, .bytes(y)), (-4, .bytes(otherD))])) }
                == .invalidKey("the public coordinates do not match the private key"))
        // d alone: x and y are derived.
        let derived = try COSEKey(cbor: key([(1, 2), (-1, 1), (-4, .bytes(try #require(d)))]))
        #expect(derived == good)
        // Missing or mistyped parts.
        #expect(coseError { _ = try COSEKey(cbor: key([(-1, 1), (-2, .bytes(x)), (-3, .bytes(y))])) } == .invalidKey("kty (1) is missing"))
        #expect(coseError { _ = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, .bytes(x))])) } == .invalidKey("y (-3) is missing"))
        #expect(coseError { _ = try COSEKey(cbor: key([(1, 2), (-2, .bytes(x)), (-3, .bytes(y))])) } == .invalidKey("crv (-1) is missing"))
        #expect(coseError { _ = try COSEKey(cbor: key([(1, 3), (-1, 1)])) } == .unsupportedKeyType("3"))
        #expect(coseError { _ = try COSEKey(cbor: key([(1, "EC2"), (-1, 1)])) } == .unsupportedKeyType("\"EC2\""))
        #expect(coseError { _ = try COSEKey(cbor: key([(1, 1), (-1, 7), (-2, .bytes(Data(count: 57)))])) } == .unsupportedCurve("Ed448 (7)"))
        #expect(coseError { _ = try COSEKey(cbor: key([(1, 1), (-1, 4), (-2, .bytes(Data(count: 32)))])) } == .unsupportedCurve("X25519 (4)"))
        if case .invalidKey? = coseError({ _ = try COSEKey(cbor: key([(1, 2), (-1, 6), (-2, .bytes(x)), (-3, .bytes(y))])) }) {} else {
            Issue.record("EC2 key on Ed25519 accepted")
        }
        if case .invalidKey? = coseError({ _ = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, "x"), (-3, .bytes(y))])) }) {} else {
            Issue.record("text x accepted")
        }
        #expect(coseError { _ = try COSEKey(cbor: key([(1, 4), (-1, .bytes(Data()))])) } == .invalidKey("symmetric key value k is empty"))
        #expect(
            coseError { _ = try COSEKey(cbor: key([(1, 2), (3, -35), (-1, 1), (-2, .bytes(x)), (-3, .bytes(y))])) }
                == .algorithmMismatch(.es384, key: "P-256"))
        if case .malformed? = coseError({ _ = try COSEKey(bytes: Data([0xa1, 0x01])) }) {} else {
            Issue.record("truncated COSE_Key accepted")
        }
        if case .invalidKey? = coseError({ _ = try COSEKey(cbor: [1, 2]) }) {} else { Issue.record("array accepted as COSE_Key") }
        // A label twice (a map built in code; the decoder refuses duplicate keys before this), and too many labels.
        let twice = key([(1, 2), (-1, 1), (-2, .bytes(x)), (-3, .bytes(y)), (-1, 1)])
        #expect(coseError { _ = try COSEKey(cbor: twice) } == .invalidKey("COSE_Key label appears twice"))
        let extensions = (0..<40).map { (CBOR.text("ext\($0)"), CBOR.bool(true)) }
        #expect(
            coseError { _ = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, .bytes(x)), (-3, .bytes(y))] + extensions)) }
                == .invalidKey("COSE_Key has more than 32 labels"))
        // Extension labels within the limit are ignored.
        let extended = try COSEKey(cbor: key([(1, 2), (-1, 1), (-2, .bytes(x)), (-3, .bytes(y))] + extensions.prefix(20)))
        if case .ec2(_, x, y, nil) = extended.material {} else { Issue.record("extension labels changed the key") }
    }

    @Test("descriptions never contain key material")
    func noKeyMaterialInDescriptions() throws {
        let key = COSEKey(P256.Signing.PrivateKey(), keyID: Data("11".utf8))
        guard case .ec2(_, let x, let y, let d?) = key.material else {
            Issue.record("no d")
            return
        }
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, key.debugDescription, String(describing: key), String(reflecting: key), dumped,
            "\(key.material)", String(reflecting: key.material)]
        {
            #expect(!text.contains(d.hex) && !text.contains(x.hex) && !text.contains(y.hex))
        }
        #expect(key.description == "COSEKey(EC2 P-256, kid 3131, private)")
        let symmetric = COSEKey(SymmetricKey(size: .bits256))
        #expect(symmetric.description == "COSEKey(Symmetric 256-bit, private)")
    }
}

extension COSEKey {
    fileprivate var withoutKeyID: COSEKey {
        var copy = self
        copy.keyID = nil
        return copy
    }
}
