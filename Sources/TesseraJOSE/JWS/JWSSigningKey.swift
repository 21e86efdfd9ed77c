import Crypto
import Foundation
import _CryptoExtras

/// A private key that signs JWS (RFC 7518 §3.4 ECDSA, RFC 8037 §3.1 EdDSA with Ed25519). Its description never
/// shows key material.
public enum JWSSigningKey: Sendable, CustomStringConvertible {
    case es256(P256.Signing.PrivateKey)
    case es384(P384.Signing.PrivateKey)
    case es512(P521.Signing.PrivateKey)
    case edDSA(Curve25519.Signing.PrivateKey)

    /// The `alg` this key signs with.
    public var algorithm: JOSEAlgorithm {
        switch self {
        case .es256: return .es256
        case .es384: return .es384
        case .es512: return .es512
        case .edDSA: return .edDSA
        }
    }

    /// The public JWK (kty, crv, x[, y]).
    public var publicJWK: JWK {
        switch self {
        case .es256(let key): return JWK(publicKey: key.publicKey)
        case .es384(let key): return JWK(publicKey: key.publicKey)
        case .es512(let key): return JWK(publicKey: key.publicKey)
        case .edDSA(let key): return JWK(publicKey: key.publicKey)
        }
    }

    /// The key that verifies this key's signatures.
    public var verificationKey: JWSVerificationKey {
        switch self {
        case .es256(let key): return .es256(key.publicKey)
        case .es384(let key): return .es384(key.publicKey)
        case .es512(let key): return .es512(key.publicKey)
        case .edDSA(let key): return .edDSA(key.publicKey)
        }
    }

    /// From a private JWK: EC P-256/384/521 or OKP Ed25519 with `d` (validated against the public part).
    public init(jwk: JWK) throws(JOSEError) {
        switch jwk.material {
        case .ec(let curve, _, _, let d):
            guard let d else { throw .missingPrivateKey }
            do {
                switch curve {
                case .p256: self = .es256(try P256.Signing.PrivateKey(rawRepresentation: d))
                case .p384: self = .es384(try P384.Signing.PrivateKey(rawRepresentation: d))
                case .p521: self = .es512(try P521.Signing.PrivateKey(rawRepresentation: d))
                }
            } catch {
                throw .invalidJWK("d is not a valid \(curve.rawValue) private key")
            }
        case .okp(let curve, _, let d):
            guard curve == .ed25519 else { throw .unsupportedCurve(curve.rawValue) }
            guard let d else { throw .missingPrivateKey }
            do {
                self = .edDSA(try Curve25519.Signing.PrivateKey(rawRepresentation: d))
            } catch {
                throw .invalidJWK("d is not a valid Ed25519 private key")
            }
        case .rsa:
            // RS256 / PS256 are verify-only here.
            throw .unsupportedKeyType("RSA")
        }
    }

    /// From PEM: PKCS#8 (`PRIVATE KEY`) or SEC 1 (`EC PRIVATE KEY`) for P-256/384/521, PKCS#8 for Ed25519.
    public init(pem: String) throws(JOSEError) {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self = .es256(key)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) {
            self = .es384(key)
        } else if let key = try? P521.Signing.PrivateKey(pemRepresentation: pem) {
            self = .es512(key)
        } else if let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) {
            self = .edDSA(key)
        } else {
            throw .invalidPEM
        }
    }

    /// The JWS Signature over `signingInput` (ECDSA as fixed-size R || S, RFC 7518 §3.4).
    func sign(_ signingInput: some DataProtocol) throws(JOSEError) -> Data {
        do {
            switch self {
            case .es256(let key): return try key.signature(for: signingInput).rawRepresentation
            case .es384(let key): return try key.signature(for: signingInput).rawRepresentation
            case .es512(let key): return try key.signature(for: signingInput).rawRepresentation
            case .edDSA(let key): return try key.signature(for: signingInput)
            }
        } catch {
            throw .signingFailed
        }
    }

    public var description: String { "JWSSigningKey(\(algorithm.rawValue))" }
}
