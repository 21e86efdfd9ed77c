import Crypto
import Foundation
import TesseraCOSE
import TesseraCore

/// An ephemeral key-agreement private key (EDeviceKey or EReaderKey, §9.1.5.2). Cipher suite 1
/// allows P-256, P-384 and P-521 here (brainpool and X25519/X448 curves are not offered by
/// swift-crypto and are rejected).
public enum EphemeralPrivateKey: Sendable {
    /// A P-256 key (the default).
    case p256(P256.KeyAgreement.PrivateKey)
    /// A P-384 key.
    case p384(P384.KeyAgreement.PrivateKey)
    /// A P-521 key.
    case p521(P521.KeyAgreement.PrivateKey)

    /// A new key from the injected random source (retried on the negligible chance the bytes
    /// are not a valid scalar).
    public static func generate(curve: COSECurve = .p256, random: any RandomSource) throws(MDocError)
        -> EphemeralPrivateKey
    {
        for _ in 0..<8 {
            do {
                switch curve {
                case .p256: return .p256(try P256.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(32)))
                case .p384: return .p384(try P384.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(48)))
                case .p521: return .p521(try P521.KeyAgreement.PrivateKey(rawRepresentation: random.bytes(66)))
                default: throw MDocError.invalidEphemeralKey("curve \(curve.name) is not supported")
                }
            } catch let error as MDocError {
                throw error
            } catch {
                continue
            }
        }
        throw .invalidEphemeralKey("no valid scalar from the random source")
    }

    /// The public half as a COSE_Key (EC2).
    public var publicCOSEKey: COSEKey {
        switch self {
        case .p256(let k): return COSEKey(k.publicKey)
        case .p384(let k): return COSEKey(k.publicKey)
        case .p521(let k): return COSEKey(k.publicKey)
        }
    }

    /// ECDH with the peer's public COSE_Key, which must be on the same curve (§9.1.5.2).
    func sharedSecret(with peer: COSEKey) throws(MDocError) -> SharedSecret {
        do {
            switch self {
            case .p256(let k): return try k.sharedSecretFromKeyAgreement(with: P256.KeyAgreement.PublicKey(coseKey: peer))
            case .p384(let k): return try k.sharedSecretFromKeyAgreement(with: P384.KeyAgreement.PublicKey(coseKey: peer))
            case .p521(let k): return try k.sharedSecretFromKeyAgreement(with: P521.KeyAgreement.PublicKey(coseKey: peer))
            }
        } catch {
            throw .invalidEphemeralKey("peer key does not match the curve or is invalid: \(error)")
        }
    }
}
