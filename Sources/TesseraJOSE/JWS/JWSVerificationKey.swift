import Crypto
import Foundation
import X509
import _CryptoExtras

/// A public key that verifies JWS. The algorithm comes from the JWS header and must fit the key type
/// (RFC 8725 §3.1): ES256/384/512 only with the matching NIST curve, EdDSA only with Ed25519, RS256 and PS256 only
/// with RSA (at least 2048 bits, RFC 7518 §3.3, §3.5).
public enum JWSVerificationKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case es384(P384.Signing.PublicKey)
    case es512(P521.Signing.PublicKey)
    case edDSA(Curve25519.Signing.PublicKey)
    case rsa(_RSA.Signing.PublicKey)

    /// From a public (or private) JWK. A JWK whose `use` is not `sig`, or whose `key_ops` lacks `verify`, is
    /// refused (RFC 7517 §4.2–4.3).
    public init(jwk: JWK) throws(JOSEError) {
        if let use = jwk.use, use != "sig" { throw .invalidJWK("use is \"\(use)\", not \"sig\"") }
        if let ops = jwk.keyOperations, !ops.contains("verify") { throw .invalidJWK("key_ops does not allow verify") }
        switch jwk.material {
        case .ec(let curve, _, _, _):
            switch jwk.ecPublicKey {
            case .p256(let key): self = .es256(key); return
            case .p384(let key): self = .es384(key); return
            case .p521(let key): self = .es512(key); return
            case nil: break
            }
            guard let point = jwk.uncompressedPoint else { throw .invalidJWK("no EC point") }
            do {
                switch curve {
                case .p256: self = .es256(try P256.Signing.PublicKey(x963Representation: point))
                case .p384: self = .es384(try P384.Signing.PublicKey(x963Representation: point))
                case .p521: self = .es512(try P521.Signing.PublicKey(x963Representation: point))
                }
            } catch {
                throw .invalidJWK("x, y is not a point on \(curve.rawValue)")
            }
        case .okp(let curve, let x, _):
            guard curve == .ed25519 else { throw .unsupportedCurve(curve.rawValue) }
            do {
                self = .edDSA(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            } catch {
                throw .invalidJWK("x is not an Ed25519 public key")
            }
        case .rsa(let n, let e, _):
            do {
                self = .rsa(try _RSA.Signing.PublicKey(n: n, e: e))
            } catch {
                throw .invalidJWK("n, e is not an RSA public key of at least 2048 bits")
            }
        }
    }

    /// The subject public key of a certificate (EC P-256/384/521, Ed25519, RSA).
    public init(certificate: Certificate) throws(JOSEError) {
        let key = certificate.publicKey
        if let ec = P256.Signing.PublicKey(key) {
            self = .es256(ec)
        } else if let ec = P384.Signing.PublicKey(key) {
            self = .es384(ec)
        } else if let ec = P521.Signing.PublicKey(key) {
            self = .es512(ec)
        } else if let ed = Curve25519.Signing.PublicKey(key) {
            self = .edDSA(ed)
        } else if let rsa = _RSA.Signing.PublicKey(key) {
            self = .rsa(rsa)
        } else {
            throw .unsupportedCertificateKey
        }
    }

    /// The public JWK of this key.
    public var jwk: JWK {
        get throws(JOSEError) {
            switch self {
            case .es256(let key): return JWK(publicKey: key)
            case .es384(let key): return JWK(publicKey: key)
            case .es512(let key): return JWK(publicKey: key)
            case .edDSA(let key): return JWK(publicKey: key)
            case .rsa(let key): return try JWK(publicKey: key)
            }
        }
    }

    /// Verifies `signature` over `signingInput` for `algorithm` (RFC 7515 §5.2 step 8).
    func verify(_ signature: Data, over signingInput: some DataProtocol, algorithm: JOSEAlgorithm) throws(JOSEError) {
        let valid: Bool
        switch (self, algorithm) {
        case (.es256(let key), .es256):
            let raw = try Self.rawECDSASignature(signature, size: 64, isDER: { (try? P256.Signing.ECDSASignature(derRepresentation: $0)) != nil })
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw) else { throw .invalidSignature }
            valid = key.isValidSignature(parsed, for: signingInput)
        case (.es384(let key), .es384):
            let raw = try Self.rawECDSASignature(signature, size: 96, isDER: { (try? P384.Signing.ECDSASignature(derRepresentation: $0)) != nil })
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: raw) else { throw .invalidSignature }
            valid = key.isValidSignature(parsed, for: signingInput)
        case (.es512(let key), .es512):
            let raw = try Self.rawECDSASignature(signature, size: 132, isDER: { (try? P521.Signing.ECDSASignature(derRepresentation: $0)) != nil })
            guard let parsed = try? P521.Signing.ECDSASignature(rawRepresentation: raw) else { throw .invalidSignature }
            valid = key.isValidSignature(parsed, for: signingInput)
        case (.edDSA(let key), .edDSA):
            guard signature.count == 64 else { throw .invalidSignatureLength(expected: 64, found: signature.count) }
            valid = key.isValidSignature(signature, for: signingInput)
        case (.rsa(let key), .rs256), (.rsa(let key), .ps256):
            let size = (key.keySizeInBits + 7) / 8
            guard signature.count == size else { throw .invalidSignatureLength(expected: size, found: signature.count) }
            let digest = SHA256.hash(data: Data(signingInput))
            let padding: _RSA.Signing.Padding = algorithm == .rs256 ? .insecurePKCS1v1_5 : .PSS
            valid = key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: digest, padding: padding)
        default:
            throw .algorithmKeyMismatch
        }
        guard valid else { throw .invalidSignature }
    }

    /// The R || S signature of `size` octets; a DER-encoded signature is named as such (RFC 7518 §3.4).
    private static func rawECDSASignature(_ signature: Data, size: Int, isDER: (Data) -> Bool) throws(JOSEError) -> Data {
        guard signature.count == size else {
            if signature.first == 0x30, isDER(signature) { throw .derSignatureRejected }
            throw .invalidSignatureLength(expected: size, found: signature.count)
        }
        return signature
    }
}
