import Crypto
import Foundation
import X509

/// Curve of a test-PKI key. Annex B allows more; the test PKI creates P-256 (default) and P-384 keys.
public enum SigningKeyAlgorithm: String, Sendable, Hashable, CaseIterable {
    case p256
    case p384
}

/// A private key that signs test-PKI certificates. Its description never shows key material.
public enum SigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)

    /// Derives a key from `random`, so that a seeded generator gives reproducible keys in tests. Production callers
    /// pass a cryptographically secure generator (`SystemRandomNumberGenerator`).
    public static func generate(
        _ algorithm: SigningKeyAlgorithm = .p256,
        using random: inout some RandomNumberGenerator
    ) throws(TrustError) -> SigningKey {
        let size = algorithm == .p256 ? 32 : 48
        // Out-of-range scalars (0 or ≥ n) are astronomically rare; draw again if one turns up.
        for _ in 0..<16 {
            var scalar = RandomBytes.draw(size, using: &random)
            defer { for index in scalar.indices { scalar[index] = 0 } }
            switch algorithm {
            case .p256:
                if let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) { return .p256(key) }
            case .p384:
                if let key = try? P384.Signing.PrivateKey(rawRepresentation: scalar) { return .p384(key) }
            }
        }
        throw .issuanceFailed("the random source produced no valid \(algorithm.rawValue) private key")
    }

    /// Reads a PKCS#8 (`PRIVATE KEY`) or SEC 1 (`EC PRIVATE KEY`) PEM P-256 or P-384 key.
    public init(pemRepresentation pem: String) throws(TrustError) {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            self = .p256(key)
        } else if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) {
            self = .p384(key)
        } else {
            throw .invalidPEM(reason: "not a P-256 or P-384 private key")
        }
    }

    public var algorithm: SigningKeyAlgorithm {
        switch self {
        case .p256: return .p256
        case .p384: return .p384
        }
    }

    /// PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), from swift-crypto's `pemRepresentation`. Secret: store it
    /// protected and never log it.
    public var pkcs8PEM: String {
        switch self {
        case .p256(let key): return key.pemRepresentation
        case .p384(let key): return key.pemRepresentation
        }
    }

    /// The key in swift-certificates' form, for signing certificates.
    public var certificatePrivateKey: Certificate.PrivateKey {
        switch self {
        case .p256(let key): return Certificate.PrivateKey(key)
        case .p384(let key): return Certificate.PrivateKey(key)
        }
    }

    /// The public key, as it appears in a certificate.
    public var publicKey: Certificate.PublicKey {
        switch self {
        case .p256(let key): return Certificate.PublicKey(key.publicKey)
        case .p384(let key): return Certificate.PublicKey(key.publicKey)
        }
    }

    /// ECDSA with the hash matching the curve (B.1: ecdsa-with-SHA256 for P-256, ecdsa-with-SHA384 for P-384).
    package var signatureAlgorithm: Certificate.SignatureAlgorithm {
        switch self {
        case .p256: return .ecdsaWithSHA256
        case .p384: return .ecdsaWithSHA384
        }
    }

    public var description: String {
        "SigningKey(\(algorithm == .p256 ? "P-256" : "P-384"))"
    }

    public var debugDescription: String { description }
}

package enum RandomBytes {
    package static func draw(_ count: Int, using random: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            let word: UInt64 = random.next()
            withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
