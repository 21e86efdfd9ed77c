import Crypto
import Foundation
import _CryptoExtras
import TesseraCore

// JWKs built from swift-crypto keys (RFC 7518 §6.2.1, RFC 8037 §2). Members in the order kty, crv, x, y (, d).
extension JWK {
    public init(publicKey: P256.Signing.PublicKey) { self = .ec(.p256, x963: publicKey.x963Representation, d: nil) }
    public init(publicKey: P384.Signing.PublicKey) { self = .ec(.p384, x963: publicKey.x963Representation, d: nil) }
    public init(publicKey: P521.Signing.PublicKey) { self = .ec(.p521, x963: publicKey.x963Representation, d: nil) }
    public init(publicKey: P256.KeyAgreement.PublicKey) { self = .ec(.p256, x963: publicKey.x963Representation, d: nil) }
    public init(publicKey: P384.KeyAgreement.PublicKey) { self = .ec(.p384, x963: publicKey.x963Representation, d: nil) }
    public init(publicKey: P521.KeyAgreement.PublicKey) { self = .ec(.p521, x963: publicKey.x963Representation, d: nil) }
    public init(publicKey: Curve25519.Signing.PublicKey) {
        self = .okp(.ed25519, x: publicKey.rawRepresentation, d: nil)
    }

    /// A private JWK (with `d`). Secret: store it protected and never log it.
    public init(privateKey: P256.Signing.PrivateKey) {
        self = .ec(.p256, x963: privateKey.publicKey.x963Representation, d: privateKey.rawRepresentation)
    }
    public init(privateKey: P384.Signing.PrivateKey) {
        self = .ec(.p384, x963: privateKey.publicKey.x963Representation, d: privateKey.rawRepresentation)
    }
    public init(privateKey: P521.Signing.PrivateKey) {
        self = .ec(.p521, x963: privateKey.publicKey.x963Representation, d: privateKey.rawRepresentation)
    }
    public init(privateKey: Curve25519.Signing.PrivateKey) {
        self = .okp(.ed25519, x: privateKey.publicKey.rawRepresentation, d: privateKey.rawRepresentation)
    }
    public init(privateKey: P256.KeyAgreement.PrivateKey) {
        self = .ec(.p256, x963: privateKey.publicKey.x963Representation, d: privateKey.rawRepresentation)
    }
    public init(privateKey: P384.KeyAgreement.PrivateKey) {
        self = .ec(.p384, x963: privateKey.publicKey.x963Representation, d: privateKey.rawRepresentation)
    }
    public init(privateKey: P521.KeyAgreement.PrivateKey) {
        self = .ec(.p521, x963: privateKey.publicKey.x963Representation, d: privateKey.rawRepresentation)
    }

    /// An RSA public JWK (RFC 7518 §6.3.1) from swift-crypto's key; `n` and `e` without leading zero octets.
    public init(publicKey: _RSA.Signing.PublicKey) throws(JOSEError) {
        guard let primitives = try? publicKey.getKeyPrimitives() else { throw .invalidJWK("RSA key primitives unavailable") }
        let n = Data(primitives.modulus.drop { $0 == 0 })
        let e = Data(primitives.publicExponent.drop { $0 == 0 })
        var object = JSONObject()
        object["kty"] = "RSA"
        object["n"] = .string(Base64URL.encode(n))
        object["e"] = .string(Base64URL.encode(e))
        self.init(validated: object, material: .rsa(n: n, e: e, hasPrivateMembers: false))
    }

    static func ec(_ curve: ECCurve, x963: Data, d: Data?) -> JWK {
        let size = curve.coordinateSize
        let x = Data(x963.dropFirst().prefix(size))
        let y = Data(x963.dropFirst(1 + size).prefix(size))
        var object = JSONObject()
        object["kty"] = "EC"
        object["crv"] = .string(curve.rawValue)
        object["x"] = .string(Base64URL.encode(x))
        object["y"] = .string(Base64URL.encode(y))
        if let d { object["d"] = .string(Base64URL.encode(d)) }
        return JWK(validated: object, material: .ec(curve, x: x, y: y, d: d))
    }

    static func okp(_ curve: OKPCurve, x: Data, d: Data?) -> JWK {
        var object = JSONObject()
        object["kty"] = "OKP"
        object["crv"] = .string(curve.rawValue)
        object["x"] = .string(Base64URL.encode(x))
        if let d { object["d"] = .string(Base64URL.encode(d)) }
        return JWK(validated: object, material: .okp(curve, x: x, d: d))
    }

    /// 04 || x || y of an EC key.
    var uncompressedPoint: Data? {
        guard case .ec(_, let x, let y, _) = material else { return nil }
        var point = Data([0x04])
        point.append(x)
        point.append(y)
        return point
    }
}
