import Crypto
import Foundation
import TesseraCore

/// JWE content encryption algorithms (RFC 7518 §5.3, AES GCM with a 96-bit IV and a 128-bit tag).
public enum JWEContentEncryption: String, Sendable, CaseIterable {
    case a128gcm = "A128GCM"
    case a256gcm = "A256GCM"

    /// The CEK length in bits.
    public var keyBitLength: Int {
        switch self {
        case .a128gcm: return 128
        case .a256gcm: return 256
        }
    }
}

/// The curves ECDH-ES is implemented for here (RFC 7518 §4.6, §6.2.1.1).
public enum ECDHCurve: String, Sendable, CaseIterable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    init(_ curve: ECCurve) {
        switch curve {
        case .p256: self = .p256
        case .p384: self = .p384
        case .p521: self = .p521
        }
    }
}

/// A recipient's private key for ECDH-ES (RFC 7518 §4.6). Its description never shows key material.
public enum JWEKeyAgreementKey: Sendable, CustomStringConvertible {
    case p256(P256.KeyAgreement.PrivateKey)
    case p384(P384.KeyAgreement.PrivateKey)
    case p521(P521.KeyAgreement.PrivateKey)

    /// From a private EC JWK (with `d`) on P-256, P-384 or P-521.
    public init(jwk: JWK) throws(JOSEError) {
        switch jwk.material {
        case .ec(let curve, _, _, let d):
            guard let d else { throw .missingPrivateKey }
            do {
                switch curve {
                case .p256: self = .p256(try P256.KeyAgreement.PrivateKey(rawRepresentation: d))
                case .p384: self = .p384(try P384.KeyAgreement.PrivateKey(rawRepresentation: d))
                case .p521: self = .p521(try P521.KeyAgreement.PrivateKey(rawRepresentation: d))
                }
            } catch {
                throw .invalidJWK("d is not a valid \(curve.rawValue) private key")
            }
        case .okp(let curve, _, _):
            throw .unsupportedCurve(curve.rawValue)
        case .rsa:
            throw .unsupportedKeyType("RSA")
        }
    }

    /// A fresh key drawn from `random` (so that tests can reproduce it).
    public static func generate(_ curve: ECDHCurve = .p256, random: any RandomSource) throws(JOSEError) -> JWEKeyAgreementKey {
        let size: Int
        switch curve {
        case .p256: size = 32
        case .p384: size = 48
        case .p521: size = 66
        }
        // A draw at or above the group order is rejected by swift-crypto; draw again (rare except for P-521,
        // whose top byte is masked to the 521-bit range first, leaving about one rejection in two).
        for _ in 0..<128 {
            var scalar = random.bytes(size)
            guard scalar.count == size else { throw .randomSourceFailure }
            if curve == .p521 { scalar[scalar.startIndex] &= 0x01 }
            defer { scalar.resetBytes(in: scalar.startIndex..<scalar.endIndex) }
            switch curve {
            case .p256: if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) { return .p256(key) }
            case .p384: if let key = try? P384.KeyAgreement.PrivateKey(rawRepresentation: scalar) { return .p384(key) }
            case .p521: if let key = try? P521.KeyAgreement.PrivateKey(rawRepresentation: scalar) { return .p521(key) }
            }
        }
        throw .randomSourceFailure
    }

    public var curve: ECDHCurve {
        switch self {
        case .p256: return .p256
        case .p384: return .p384
        case .p521: return .p521
        }
    }

    /// The public JWK (kty EC, crv, x, y).
    public var publicJWK: JWK {
        switch self {
        case .p256(let key): return JWK(publicKey: key.publicKey)
        case .p384(let key): return JWK(publicKey: key.publicKey)
        case .p521(let key): return JWK(publicKey: key.publicKey)
        }
    }

    /// The private JWK (with `d`). Secret: store it protected and never log it.
    public var privateJWK: JWK {
        switch self {
        case .p256(let key): return JWK(privateKey: key)
        case .p384(let key): return JWK(privateKey: key)
        case .p521(let key): return JWK(privateKey: key)
        }
    }

    /// Z, the x-coordinate of the shared point with the peer's uncompressed point (RFC 7518 §4.6.2); nil when
    /// the point is not on this key's curve.
    func sharedSecret(withPoint point: Data) -> SharedSecret? {
        switch self {
        case .p256(let key):
            guard let peer = try? P256.KeyAgreement.PublicKey(x963Representation: point) else { return nil }
            return try? key.sharedSecretFromKeyAgreement(with: peer)
        case .p384(let key):
            guard let peer = try? P384.KeyAgreement.PublicKey(x963Representation: point) else { return nil }
            return try? key.sharedSecretFromKeyAgreement(with: peer)
        case .p521(let key):
            guard let peer = try? P521.KeyAgreement.PublicKey(x963Representation: point) else { return nil }
            return try? key.sharedSecretFromKeyAgreement(with: peer)
        }
    }

    public var description: String { "JWEKeyAgreementKey(\(curve.rawValue))" }
}
