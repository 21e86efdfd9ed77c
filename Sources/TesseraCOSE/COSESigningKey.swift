import Crypto
import Foundation

/// A private key that can make COSE signatures: one case per supported curve, each bound to
/// exactly one algorithm (ES256 ↔ P-256, ES384 ↔ P-384, ES512 ↔ P-521, EdDSA ↔ Ed25519).
///
/// ECDSA signatures are randomized and written as fixed-length `r‖s` (RFC 9053 §2.1);
/// Ed25519 signatures are deterministic on Linux (BoringSSL, RFC 8032) but Apple's CryptoKit
/// randomizes them, so never compare signatures byte for byte across platforms.
public enum COSESigningKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// The private key held by an EC2 or OKP COSE_Key; `d` must be present.
    public init(_ key: COSEKey) throws(COSEError) {
        switch key.material {
        case .ec2(.p256, _, _, _): self = .p256(try P256.Signing.PrivateKey(coseKey: key))
        case .ec2(.p384, _, _, _): self = .p384(try P384.Signing.PrivateKey(coseKey: key))
        case .ec2(.p521, _, _, _): self = .p521(try P521.Signing.PrivateKey(coseKey: key))
        case .okp(.ed25519, _, _): self = .ed25519(try Curve25519.Signing.PrivateKey(coseKey: key))
        default: throw .invalidKey("\(key.material) cannot make signatures")
        }
    }

    public var curve: COSECurve {
        switch self {
        case .p256: return .p256
        case .p384: return .p384
        case .p521: return .p521
        case .ed25519: return .ed25519
        }
    }

    /// The algorithm this key signs with.
    public var algorithm: COSEAlgorithm { curve.signatureAlgorithm }

    /// The matching public key.
    public var verificationKey: COSEVerificationKey {
        switch self {
        case .p256(let k): return .p256(k.publicKey)
        case .p384(let k): return .p384(k.publicKey)
        case .p521(let k): return .p521(k.publicKey)
        case .ed25519(let k): return .ed25519(k.publicKey)
        }
    }

    /// The key as a COSE_Key, private part included.
    public func coseKey(keyID: Data? = nil) -> COSEKey {
        switch self {
        case .p256(let k): return COSEKey(k, keyID: keyID)
        case .p384(let k): return COSEKey(k, keyID: keyID)
        case .p521(let k): return COSEKey(k, keyID: keyID)
        case .ed25519(let k): return COSEKey(k, keyID: keyID)
        }
    }

    /// Signs `message` with this key's algorithm: ECDSA over SHA-256/384/512 giving `r‖s`, or
    /// PureEdDSA (RFC 9053 §2.1, §2.2).
    public func sign(_ message: Data) throws(COSEError) -> Data {
        do {
            switch self {
            case .p256(let k): return try k.signature(for: message).rawRepresentation
            case .p384(let k): return try k.signature(for: message).rawRepresentation
            case .p521(let k): return try k.signature(for: message).rawRepresentation
            case .ed25519(let k): return try k.signature(for: message)
            }
        } catch {
            throw .cryptoFailure("\(algorithm.name) signing")
        }
    }
}
