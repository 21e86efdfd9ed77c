import Crypto
import Foundation

/// A public key that can check COSE signatures: one case per supported curve, each bound to
/// exactly one algorithm (ES256 ↔ P-256, ES384 ↔ P-384, ES512 ↔ P-521, EdDSA ↔ Ed25519).
public enum COSEVerificationKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    /// The public key held by an EC2 or OKP COSE_Key (private material, if any, is ignored).
    public init(_ key: COSEKey) throws(COSEError) {
        switch key.material {
        case .ec2(.p256, _, _, _): self = .p256(try P256.Signing.PublicKey(coseKey: key))
        case .ec2(.p384, _, _, _): self = .p384(try P384.Signing.PublicKey(coseKey: key))
        case .ec2(.p521, _, _, _): self = .p521(try P521.Signing.PublicKey(coseKey: key))
        case .okp(.ed25519, _, _): self = .ed25519(try Curve25519.Signing.PublicKey(coseKey: key))
        default: throw .invalidKey("\(key.material) cannot verify signatures")
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

    /// The algorithm this key verifies.
    public var algorithm: COSEAlgorithm { curve.signatureAlgorithm }

    /// The key as a COSE_Key.
    public func coseKey(keyID: Data? = nil) -> COSEKey {
        switch self {
        case .p256(let k): return COSEKey(k, keyID: keyID)
        case .p384(let k): return COSEKey(k, keyID: keyID)
        case .p521(let k): return COSEKey(k, keyID: keyID)
        case .ed25519(let k): return COSEKey(k, keyID: keyID)
        }
    }

    /// Checks `signature` over `message` with `algorithm` (RFC 9053 §2.1, §2.2).
    ///
    /// The algorithm must be the one bound to this key's curve. An ECDSA signature must be the
    /// fixed-length `r‖s` form; a DER `Ecdsa-Sig-Value` is rejected with `.derSignatureRejected`.
    public func verify(_ signature: Data, for message: Data, algorithm: COSEAlgorithm) throws(COSEError) {
        guard algorithm == self.algorithm else { throw .algorithmMismatch(algorithm, key: curve.name) }
        guard signature.count == algorithm.outputLength else {
            if isDERSignature(signature) { throw .derSignatureRejected }
            throw .signatureLengthInvalid(expected: algorithm.outputLength, found: signature.count)
        }
        let valid: Bool
        switch self {
        case .p256(let key):
            guard let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { throw .signatureInvalid }
            valid = key.isValidSignature(sig, for: message)
        case .p384(let key):
            guard let sig = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { throw .signatureInvalid }
            valid = key.isValidSignature(sig, for: message)
        case .p521(let key):
            guard let sig = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { throw .signatureInvalid }
            valid = key.isValidSignature(sig, for: message)
        case .ed25519(let key):
            valid = key.isValidSignature(signature, for: message)
        }
        guard valid else { throw .signatureInvalid }
    }

    /// True when the bytes parse as a DER ECDSA signature for this key's curve.
    private func isDERSignature(_ bytes: Data) -> Bool {
        guard bytes.first == 0x30 else { return false }
        switch self {
        case .p256: return (try? P256.Signing.ECDSASignature(derRepresentation: bytes)) != nil
        case .p384: return (try? P384.Signing.ECDSASignature(derRepresentation: bytes)) != nil
        case .p521: return (try? P521.Signing.ECDSASignature(derRepresentation: bytes)) != nil
        case .ed25519: return false
        }
    }
}
