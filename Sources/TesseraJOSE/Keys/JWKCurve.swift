import Crypto
import Foundation

/// NIST curves of `kty: EC` (RFC 7518 §6.2.1.1) with their fixed coordinate sizes (§6.2.1.2–3: the full
/// coordinate size, leading zeros kept).
enum ECCurve: String, Sendable, Hashable {
    case p256 = "P-256"
    case p384 = "P-384"
    case p521 = "P-521"

    var coordinateSize: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        }
    }

    /// The public key at 04 || x || y, or nil when that is not a point on the curve (swift-crypto validates on
    /// import).
    func publicKey(x963: Data) -> ECPublicKey? {
        switch self {
        case .p256: return (try? P256.Signing.PublicKey(x963Representation: x963)).map(ECPublicKey.p256)
        case .p384: return (try? P384.Signing.PublicKey(x963Representation: x963)).map(ECPublicKey.p384)
        case .p521: return (try? P521.Signing.PublicKey(x963Representation: x963)).map(ECPublicKey.p521)
        }
    }

    /// The uncompressed public point (04 || x || y) of the private scalar `d`, or nil when `d` is not a valid
    /// scalar.
    func publicPoint(ofPrivateScalar d: Data) -> Data? {
        switch self {
        case .p256: return (try? P256.Signing.PrivateKey(rawRepresentation: d))?.publicKey.x963Representation
        case .p384: return (try? P384.Signing.PrivateKey(rawRepresentation: d))?.publicKey.x963Representation
        case .p521: return (try? P521.Signing.PrivateKey(rawRepresentation: d))?.publicKey.x963Representation
        }
    }
}

/// An EC public key as imported when its JWK was validated: the point-on-curve check already built it, so a JWK
/// used to verify is not imported a second time.
enum ECPublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)
}

/// Curves of `kty: OKP` (RFC 8037 §2) with their key sizes.
enum OKPCurve: String, Sendable, Hashable {
    case ed25519 = "Ed25519"
    case x25519 = "X25519"
    case ed448 = "Ed448"
    case x448 = "X448"

    var keySize: Int {
        switch self {
        case .ed25519, .x25519: return 32
        case .ed448: return 57
        case .x448: return 56
        }
    }

    /// The public key of private key `d`, for the curves swift-crypto implements (nil for the others, or when `d`
    /// is unusable).
    func publicKey(ofPrivateKey d: Data) -> Data? {
        switch self {
        case .ed25519: return (try? Curve25519.Signing.PrivateKey(rawRepresentation: d))?.publicKey.rawRepresentation
        case .x25519: return (try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: d))?.publicKey.rawRepresentation
        case .ed448, .x448: return nil
        }
    }
}
