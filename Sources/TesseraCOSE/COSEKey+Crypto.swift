import Crypto
import Foundation

// Conversions between COSE_Key (RFC 9053 §7) and swift-crypto key types.
//
// From swift-crypto: `COSEKey(key, keyID:)` never fails (swift-crypto keys are valid by
// construction). To swift-crypto: `try P256.Signing.PublicKey(coseKey:)` and friends check
// the key type and curve, and for private keys that `d` is present.

extension COSEKey {
    /// An EC2 key from an uncompressed SEC 1 point (`04 ‖ x ‖ y`) produced by swift-crypto.
    init(ec2 curve: COSECurve, point: Data, d: Data?, keyID: Data?) {
        let n = curve.coordinateLength
        // swift-crypto's x963Representation is always 1 + 2n bytes; slicing cannot trap.
        let bytes = [UInt8](point).dropFirst()
        let x = Data(bytes.prefix(n))
        let y = Data(bytes.dropFirst(n).prefix(n))
        self.init(unchecked: .ec2(curve: curve, x: x, y: y, d: d), keyID: keyID, algorithm: nil)
    }

    /// The uncompressed point of an EC2 key on `curve`.
    func ec2Point(on curve: COSECurve) throws(COSEError) -> Data {
        guard case .ec2(let c, let x, let y, _) = material, c == curve else {
            throw .invalidKey("expected an EC2 \(curve.name) key, found \(material)")
        }
        return Data([0x04]) + x + y
    }

    /// The private scalar of an EC2 key on `curve`.
    func ec2Scalar(on curve: COSECurve) throws(COSEError) -> Data {
        guard case .ec2(let c, _, _, let d) = material, c == curve else {
            throw .invalidKey("expected an EC2 \(curve.name) key, found \(material)")
        }
        guard let d else { throw .invalidKey("the key has no private part (d)") }
        return d
    }

    /// x and d of an OKP key on `curve`.
    func okpParts(on curve: COSECurve) throws(COSEError) -> (x: Data, d: Data?) {
        guard case .okp(let c, let x, let d) = material, c == curve else {
            throw .invalidKey("expected an OKP \(curve.name) key, found \(material)")
        }
        return (x, d)
    }
}

/// Runs a swift-crypto initializer, reporting its failure as an invalid key.
func cryptoKey<T>(_ what: String, _ body: () throws -> T) throws(COSEError) -> T {
    do { return try body() } catch { throw .invalidKey("not a valid \(what)") }
}

// MARK: P256.Signing

extension COSEKey {
    /// An EC2 P-256 public key.
    public init(_ key: P256.Signing.PublicKey, keyID: Data? = nil) {
        self.init(ec2: .p256, point: key.x963Representation, d: nil, keyID: keyID)
    }

    /// An EC2 P-256 private key (with x and y).
    public init(_ key: P256.Signing.PrivateKey, keyID: Data? = nil) {
        self.init(ec2: .p256, point: key.publicKey.x963Representation, d: key.rawRepresentation, keyID: keyID)
    }
}

extension P256.Signing.PublicKey {
    /// The public key of an EC2 P-256 COSE_Key.
    public init(coseKey: COSEKey) throws(COSEError) {
        let point = try coseKey.ec2Point(on: .p256)
        self = try cryptoKey("P-256 public key") { try Self(x963Representation: point) }
    }
}

extension P256.Signing.PrivateKey {
    /// The private key of an EC2 P-256 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        let d = try coseKey.ec2Scalar(on: .p256)
        self = try cryptoKey("P-256 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: P256.KeyAgreement

extension COSEKey {
    /// An EC2 P-256 public key.
    public init(_ key: P256.KeyAgreement.PublicKey, keyID: Data? = nil) {
        self.init(ec2: .p256, point: key.x963Representation, d: nil, keyID: keyID)
    }

    /// An EC2 P-256 private key (with x and y).
    public init(_ key: P256.KeyAgreement.PrivateKey, keyID: Data? = nil) {
        self.init(ec2: .p256, point: key.publicKey.x963Representation, d: key.rawRepresentation, keyID: keyID)
    }
}

extension P256.KeyAgreement.PublicKey {
    /// The public key of an EC2 P-256 COSE_Key (the one its check imported, when it has one).
    public init(coseKey: COSEKey) throws(COSEError) {
        if case .p256(let key)? = coseKey.agreementKey {
            self = key
            return
        }
        let point = try coseKey.ec2Point(on: .p256)
        self = try cryptoKey("P-256 public key") { try Self(x963Representation: point) }
    }
}

extension P256.KeyAgreement.PrivateKey {
    /// The private key of an EC2 P-256 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        let d = try coseKey.ec2Scalar(on: .p256)
        self = try cryptoKey("P-256 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: P384.Signing

extension COSEKey {
    /// An EC2 P-384 public key.
    public init(_ key: P384.Signing.PublicKey, keyID: Data? = nil) {
        self.init(ec2: .p384, point: key.x963Representation, d: nil, keyID: keyID)
    }

    /// An EC2 P-384 private key (with x and y).
    public init(_ key: P384.Signing.PrivateKey, keyID: Data? = nil) {
        self.init(ec2: .p384, point: key.publicKey.x963Representation, d: key.rawRepresentation, keyID: keyID)
    }
}

extension P384.Signing.PublicKey {
    /// The public key of an EC2 P-384 COSE_Key.
    public init(coseKey: COSEKey) throws(COSEError) {
        let point = try coseKey.ec2Point(on: .p384)
        self = try cryptoKey("P-384 public key") { try Self(x963Representation: point) }
    }
}

extension P384.Signing.PrivateKey {
    /// The private key of an EC2 P-384 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        let d = try coseKey.ec2Scalar(on: .p384)
        self = try cryptoKey("P-384 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: P384.KeyAgreement

extension COSEKey {
    /// An EC2 P-384 public key.
    public init(_ key: P384.KeyAgreement.PublicKey, keyID: Data? = nil) {
        self.init(ec2: .p384, point: key.x963Representation, d: nil, keyID: keyID)
    }

    /// An EC2 P-384 private key (with x and y).
    public init(_ key: P384.KeyAgreement.PrivateKey, keyID: Data? = nil) {
        self.init(ec2: .p384, point: key.publicKey.x963Representation, d: key.rawRepresentation, keyID: keyID)
    }
}

extension P384.KeyAgreement.PublicKey {
    /// The public key of an EC2 P-384 COSE_Key (the one its check imported, when it has one).
    public init(coseKey: COSEKey) throws(COSEError) {
        if case .p384(let key)? = coseKey.agreementKey {
            self = key
            return
        }
        let point = try coseKey.ec2Point(on: .p384)
        self = try cryptoKey("P-384 public key") { try Self(x963Representation: point) }
    }
}

extension P384.KeyAgreement.PrivateKey {
    /// The private key of an EC2 P-384 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        let d = try coseKey.ec2Scalar(on: .p384)
        self = try cryptoKey("P-384 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: P521.Signing

extension COSEKey {
    /// An EC2 P-521 public key.
    public init(_ key: P521.Signing.PublicKey, keyID: Data? = nil) {
        self.init(ec2: .p521, point: key.x963Representation, d: nil, keyID: keyID)
    }

    /// An EC2 P-521 private key (with x and y).
    public init(_ key: P521.Signing.PrivateKey, keyID: Data? = nil) {
        self.init(ec2: .p521, point: key.publicKey.x963Representation, d: key.rawRepresentation, keyID: keyID)
    }
}

extension P521.Signing.PublicKey {
    /// The public key of an EC2 P-521 COSE_Key.
    public init(coseKey: COSEKey) throws(COSEError) {
        let point = try coseKey.ec2Point(on: .p521)
        self = try cryptoKey("P-521 public key") { try Self(x963Representation: point) }
    }
}

extension P521.Signing.PrivateKey {
    /// The private key of an EC2 P-521 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        let d = try coseKey.ec2Scalar(on: .p521)
        self = try cryptoKey("P-521 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: P521.KeyAgreement

extension COSEKey {
    /// An EC2 P-521 public key.
    public init(_ key: P521.KeyAgreement.PublicKey, keyID: Data? = nil) {
        self.init(ec2: .p521, point: key.x963Representation, d: nil, keyID: keyID)
    }

    /// An EC2 P-521 private key (with x and y).
    public init(_ key: P521.KeyAgreement.PrivateKey, keyID: Data? = nil) {
        self.init(ec2: .p521, point: key.publicKey.x963Representation, d: key.rawRepresentation, keyID: keyID)
    }
}

extension P521.KeyAgreement.PublicKey {
    /// The public key of an EC2 P-521 COSE_Key (the one its check imported, when it has one).
    public init(coseKey: COSEKey) throws(COSEError) {
        if case .p521(let key)? = coseKey.agreementKey {
            self = key
            return
        }
        let point = try coseKey.ec2Point(on: .p521)
        self = try cryptoKey("P-521 public key") { try Self(x963Representation: point) }
    }
}

extension P521.KeyAgreement.PrivateKey {
    /// The private key of an EC2 P-521 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        let d = try coseKey.ec2Scalar(on: .p521)
        self = try cryptoKey("P-521 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: Curve25519.Signing (Ed25519)

extension COSEKey {
    /// An OKP Ed25519 public key.
    public init(_ key: Curve25519.Signing.PublicKey, keyID: Data? = nil) {
        self.init(unchecked: .okp(curve: .ed25519, x: key.rawRepresentation, d: nil), keyID: keyID, algorithm: nil)
    }

    /// An OKP Ed25519 private key (with x).
    public init(_ key: Curve25519.Signing.PrivateKey, keyID: Data? = nil) {
        self.init(
            unchecked: .okp(curve: .ed25519, x: key.publicKey.rawRepresentation, d: key.rawRepresentation),
            keyID: keyID, algorithm: nil)
    }
}

extension Curve25519.Signing.PublicKey {
    /// The public key of an OKP Ed25519 COSE_Key.
    public init(coseKey: COSEKey) throws(COSEError) {
        let x = try coseKey.okpParts(on: .ed25519).x
        self = try cryptoKey("Ed25519 public key") { try Self(rawRepresentation: x) }
    }
}

extension Curve25519.Signing.PrivateKey {
    /// The private key of an OKP Ed25519 COSE_Key; `d` must be present.
    public init(coseKey: COSEKey) throws(COSEError) {
        guard let d = try coseKey.okpParts(on: .ed25519).d else { throw .invalidKey("the key has no private part (d)") }
        self = try cryptoKey("Ed25519 private key") { try Self(rawRepresentation: d) }
    }
}

// MARK: Symmetric

extension COSEKey {
    /// A Symmetric COSE_Key holding `key`.
    public init(_ key: SymmetricKey, keyID: Data? = nil) {
        let k = key.withUnsafeBytes { Data($0) }
        self.init(unchecked: .symmetric(k: k), keyID: keyID, algorithm: nil)
    }
}

extension SymmetricKey {
    /// The key value `k` of a Symmetric COSE_Key.
    public init(coseKey: COSEKey) throws(COSEError) {
        guard case .symmetric(let k) = coseKey.material else {
            throw .invalidKey("expected a Symmetric key, found \(coseKey.material)")
        }
        self.init(data: k)
    }
}
