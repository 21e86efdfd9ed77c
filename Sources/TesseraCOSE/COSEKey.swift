import Crypto
import Foundation
import TesseraCBOR

/// The public point of a checked EC2 COSE_Key, imported once for key agreement.
enum EC2AgreementKey: Sendable {
    case p256(P256.KeyAgreement.PublicKey)
    case p384(P384.KeyAgreement.PublicKey)
    case p521(P521.KeyAgreement.PublicKey)
}

/// A COSE_Key (RFC 9052 §7, RFC 9053 §7 and §6.1).
///
/// Supported: EC2 (kty 2) on P-256 / P-384 / P-521 with `x`, `y` and optional `d`; OKP
/// (kty 1) on Ed25519 with `x` and optional `d`; Symmetric (kty 4) with `k`.
///
/// Every key is checked when it is made: coordinates and scalars must have the curve's exact
/// length (leading zeros kept, RFC 9053 §7.1.1), public points must be on the curve, and a
/// private scalar must match the public coordinates given with it. When only `d` is given
/// the public part is derived. A compressed EC2 point (`y` sent as a bool) is rejected.
///
/// Parameters other than kty, kid, alg and the key material (e.g. `key_ops`, `Base IV`) are
/// accepted on input but not kept.
///
/// `description` names the key type, curve and kid only; key material is never printed.
public struct COSEKey: Sendable, Equatable {
    /// The key material, by key type.
    public enum Material: Sendable, Equatable {
        /// EC2 (RFC 9053 §7.1.1): x and y coordinates, and the private scalar d if present.
        case ec2(curve: COSECurve, x: Data, y: Data, d: Data?)
        /// OKP (RFC 9053 §7.2): the public key x, and the private key d if present.
        case okp(curve: COSECurve, x: Data, d: Data?)
        /// Symmetric (RFC 9053 §6.1): the key value k.
        case symmetric(k: Data)
    }

    /// COSE_Key labels (RFC 9052 §7.1, RFC 9053 §7.1.1, §7.2, §6.1).
    enum Label {
        static let kty: CBOR = 1
        static let kid: CBOR = 2
        static let alg: CBOR = 3
        static let crv: CBOR = -1
        static let k: CBOR = -1
        static let x: CBOR = -2
        static let y: CBOR = -3
        static let d: CBOR = -4
    }

    public let material: Material
    /// The public point of a checked EC2 key, as the on-curve check imported it (for key agreement): a session's
    /// ECDH (ISO/IEC 18013-5 §9.1.1.4) or an EMacKey derivation (§9.1.3.5) uses it without importing the point a
    /// second time. Nil for keys made from swift-crypto keys and for other key types.
    let agreementKey: EC2AgreementKey?
    /// `kid` (label 2).
    public var keyID: Data?
    /// `alg` (label 3), which restricts the key to one algorithm.
    public let algorithm: COSEAlgorithm?

    /// A key from its material, after the checks described on the type.
    public init(material: Material, keyID: Data? = nil, algorithm: COSEAlgorithm? = nil) throws(COSEError) {
        switch material {
        case .ec2(let curve, let x, let y, let d):
            self.agreementKey = try Self.checkedEC2(curve: curve, x: x, y: y, d: d)
            self.material = material
        case .okp(let curve, let x, let d):
            self.material = try Self.checkedOKP(curve: curve, x: x, d: d)
            self.agreementKey = nil
        case .symmetric(let k):
            guard !k.isEmpty else { throw .invalidKey("symmetric key value k is empty") }
            self.material = material
            self.agreementKey = nil
        }
        self.keyID = keyID
        self.algorithm = algorithm
        if let algorithm { try Self.check(algorithm, against: self.material) }
    }

    /// The most labels a COSE_Key read from outside may have (RFC 9052 §7 defines seven; the rest are extensions).
    static let maxLabels = 32

    /// A key read from a COSE_Key map.
    public init(cbor: CBOR) throws(COSEError) {
        guard case .map(let map) = cbor else { throw .invalidKey("COSE_Key must be a map, found \(cbor.kindName)") }
        // A COSE_Key has a handful of labels: each is compared with those before it (no set to build and hash).
        let entries = map.entries
        for (position, entry) in entries.enumerated() {
            switch entry.key {
            case .unsigned, .negative, .text: break
            default: throw .invalidKey("COSE_Key label must be an integer or text string, found \(entry.key.kindName)")
            }
            guard position < Self.maxLabels else { throw .invalidKey("COSE_Key has more than \(Self.maxLabels) labels") }
            guard !entries[..<position].contains(where: { $0.key.isSameLabel(as: entry.key) }) else {
                throw .invalidKey("COSE_Key label appears twice")
            }
        }

        // Every label is now an integer or a text string: looked up by `isSameLabel`.
        func value(_ label: CBOR) -> CBOR? { entries.first { $0.key.isSameLabel(as: label) }?.value }
        func bytes(_ label: CBOR, _ name: String) throws(COSEError) -> Data? {
            guard let value = value(label) else { return nil }
            guard case .bytes(let b) = value else { throw .invalidKey("\(name) must be a byte string, found \(value.kindName)") }
            return b
        }
        func curve() throws(COSEError) -> COSECurve {
            guard let value = value(Label.crv) else { throw .invalidKey("crv (-1) is missing") }
            switch value {
            case .unsigned, .negative:
                guard let id = value.int64Value else { throw .unsupportedCurve("out of range") }
                return try COSECurve(identifier: id)
            case .text(let s): throw .unsupportedCurve("\"\(s)\"")
            default: throw .invalidKey("crv must be an integer or text string, found \(value.kindName)")
            }
        }

        guard let ktyValue = value(Label.kty) else { throw .invalidKey("kty (1) is missing") }
        let keyType: COSEKeyType
        switch ktyValue {
        case .unsigned, .negative:
            guard let id = ktyValue.int64Value, let kty = COSEKeyType(rawValue: id) else {
                throw .unsupportedKeyType("\(ktyValue.int64Value.map(String.init) ?? "out of range")")
            }
            keyType = kty
        case .text(let s): throw .unsupportedKeyType("\"\(s)\"")
        default: throw .invalidKey("kty must be an integer or text string, found \(ktyValue.kindName)")
        }

        let keyID = try bytes(Label.kid, "kid (2)")
        let algorithm: COSEAlgorithm? = try value(Label.alg).map { (v) throws(COSEError) in try COSEAlgorithm(cbor: v) }

        let material: Material
        switch keyType {
        case .ec2:
            let crv = try curve()
            if case .bool = value(Label.y) {
                throw .invalidKey("compressed EC2 point (y as a bool) is not supported; send the y coordinate")
            }
            guard let d = try bytes(Label.d, "d (-4)") else {
                guard let x = try bytes(Label.x, "x (-2)") else { throw .invalidKey("x (-2) is missing") }
                guard let y = try bytes(Label.y, "y (-3)") else { throw .invalidKey("y (-3) is missing") }
                material = .ec2(curve: crv, x: x, y: y, d: nil)
                break
            }
            // A private key may leave out x and y (RFC 9053 §7.1.1); derive them.
            let x = try bytes(Label.x, "x (-2)")
            let y = try bytes(Label.y, "y (-3)")
            if let x, let y {
                material = .ec2(curve: crv, x: x, y: y, d: d)
            } else if x == nil && y == nil {
                material = try Self.ec2FromPrivate(curve: crv, d: d)
            } else {
                throw .invalidKey("x and y must both be present or both be absent")
            }
        case .okp:
            let crv = try curve()
            let d = try bytes(Label.d, "d (-4)")
            if let x = try bytes(Label.x, "x (-2)") {
                material = .okp(curve: crv, x: x, d: d)
            } else if let d {
                material = try Self.okpFromPrivate(curve: crv, d: d)
            } else {
                throw .invalidKey("x (-2) is missing")
            }
        case .symmetric:
            guard let k = try bytes(Label.k, "k (-1)") else { throw .invalidKey("k (-1) is missing") }
            material = .symmetric(k: k)
        }
        try self.init(material: material, keyID: keyID, algorithm: algorithm)
    }

    /// A key decoded from COSE_Key bytes (strict CBOR, no trailing bytes).
    public init(bytes: some ContiguousBytes) throws(COSEError) {
        let item: CBOR
        do { item = try CBOR.decode(bytes, options: .strict) } catch { throw .malformed(error) }
        try self.init(cbor: item)
    }

    // MARK: Properties

    public var keyType: COSEKeyType {
        switch material {
        case .ec2: return .ec2
        case .okp: return .okp
        case .symmetric: return .symmetric
        }
    }

    /// The curve, or nil for a symmetric key.
    public var curve: COSECurve? {
        switch material {
        case .ec2(let c, _, _, _), .okp(let c, _, _): return c
        case .symmetric: return nil
        }
    }

    /// True when the key holds private material (d, or k for a symmetric key).
    public var isPrivate: Bool {
        switch material {
        case .ec2(_, _, _, let d), .okp(_, _, let d): return d != nil
        case .symmetric: return true
        }
    }

    /// The public part of an asymmetric key (d removed); a symmetric key has none.
    public var publicKey: COSEKey {
        get throws(COSEError) {
            switch material {
            case .ec2(let c, let x, let y, _):
                return COSEKey(
                    unchecked: .ec2(curve: c, x: x, y: y, d: nil), keyID: keyID, algorithm: algorithm,
                    agreementKey: agreementKey)
            case .okp(let c, let x, _):
                return COSEKey(unchecked: .okp(curve: c, x: x, d: nil), keyID: keyID, algorithm: algorithm)
            case .symmetric:
                throw .invalidKey("a symmetric key has no public part")
            }
        }
    }

    /// The COSE_Key map: kty, kid, alg, then the key parameters.
    public var cbor: CBOR {
        var map = CBORMap()
        map.append(key: Label.kty, value: .int(keyType.rawValue))
        if let keyID { map.append(key: Label.kid, value: .bytes(keyID)) }
        if let algorithm { map.append(key: Label.alg, value: algorithm.cbor) }
        switch material {
        case .ec2(let c, let x, let y, let d):
            map.append(key: Label.crv, value: .int(c.rawValue))
            map.append(key: Label.x, value: .bytes(x))
            map.append(key: Label.y, value: .bytes(y))
            if let d { map.append(key: Label.d, value: .bytes(d)) }
        case .okp(let c, let x, let d):
            map.append(key: Label.crv, value: .int(c.rawValue))
            map.append(key: Label.x, value: .bytes(x))
            if let d { map.append(key: Label.d, value: .bytes(d)) }
        case .symmetric(let k):
            map.append(key: Label.k, value: .bytes(k))
        }
        return .map(map)
    }

    /// The COSE_Key in core deterministic encoding (RFC 8949 §4.2.1).
    public func encoded() -> Data { cbor.encoded(options: .deterministic) }

    // MARK: Internals

    /// For material already checked.
    init(unchecked material: Material, keyID: Data?, algorithm: COSEAlgorithm?, agreementKey: EC2AgreementKey? = nil) {
        self.material = material
        self.keyID = keyID
        self.algorithm = algorithm
        self.agreementKey = agreementKey
    }

    /// Equality is that of the key material, `kid` and `alg` (the imported point is derived from the material).
    public static func == (lhs: COSEKey, rhs: COSEKey) -> Bool {
        lhs.material == rhs.material && lhs.keyID == rhs.keyID && lhs.algorithm == rhs.algorithm
    }

    static func check(_ algorithm: COSEAlgorithm, against material: Material) throws(COSEError) {
        switch material {
        case .ec2(let c, _, _, _), .okp(let c, _, _):
            guard algorithm.curve == c else { throw .algorithmMismatch(algorithm, key: c.name) }
        case .symmetric:
            guard algorithm == .hmac256 else { throw .algorithmMismatch(algorithm, key: "symmetric") }
        }
    }

    static func checkLength(_ value: Data, _ name: String, _ curve: COSECurve) throws(COSEError) {
        guard value.count == curve.coordinateLength else {
            throw .invalidKey("\(name) must be \(curve.coordinateLength) bytes for \(curve.name), found \(value.count)")
        }
    }

    /// Checks EC2 material (see the type) and returns its public point as imported by the on-curve check.
    static func checkedEC2(curve: COSECurve, x: Data, y: Data, d: Data?) throws(COSEError) -> EC2AgreementKey {
        guard curve.keyType == .ec2 else { throw .invalidKey("curve \(curve.name) is not an EC2 curve") }
        try checkLength(x, "x", curve)
        try checkLength(y, "y", curve)
        if let d { try checkLength(d, "d", curve) }
        do {
            // 0x04 ‖ x ‖ y (SEC 1 uncompressed point), assembled on the stack: every key received is imported
            // this way, and a heap buffer appended to three times cost a fifth of the import.
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1 + x.count + y.count) { buffer in
                buffer[0] = 0x04
                _ = x.copyBytes(to: UnsafeMutableBufferPointer(rebasing: buffer[1..<(1 + x.count)]))
                _ = y.copyBytes(to: UnsafeMutableBufferPointer(rebasing: buffer[(1 + x.count)...]))
                let point = UnsafeRawBufferPointer(buffer)
                let imported: EC2AgreementKey
                let derived: Data?
                switch curve {
                case .p256:
                    imported = .p256(try P256.KeyAgreement.PublicKey(x963Representation: point))
                    derived = try d.map { try P256.Signing.PrivateKey(rawRepresentation: $0).publicKey.x963Representation }
                case .p384:
                    imported = .p384(try P384.KeyAgreement.PublicKey(x963Representation: point))
                    derived = try d.map { try P384.Signing.PrivateKey(rawRepresentation: $0).publicKey.x963Representation }
                case .p521:
                    imported = .p521(try P521.KeyAgreement.PublicKey(x963Representation: point))
                    derived = try d.map { try P521.Signing.PrivateKey(rawRepresentation: $0).publicKey.x963Representation }
                case .ed25519:
                    throw COSEError.unsupportedCurve(curve.name)  // excluded by the keyType guard above
                }
                if let derived, !derived.elementsEqual(point) { throw KeyMismatch() }
                return imported
            }
        } catch is KeyMismatch {
            throw .invalidKey("the public coordinates do not match the private key")
        } catch {
            throw .invalidKey(d == nil ? "the point is not on \(curve.name)" : "the point is not on \(curve.name) or d is out of range")
        }
    }

    /// d does not give the public coordinates sent with it.
    private struct KeyMismatch: Error {}

    static func checkedOKP(curve: COSECurve, x: Data, d: Data?) throws(COSEError) -> Material {
        guard curve.keyType == .okp else { throw .invalidKey("curve \(curve.name) is not an OKP curve") }
        try checkLength(x, "x", curve)
        if let d {
            try checkLength(d, "d", curve)
            let derived: Data
            do { derived = try Curve25519.Signing.PrivateKey(rawRepresentation: d).publicKey.rawRepresentation } catch {
                throw .invalidKey("d is not a valid \(curve.name) private key")
            }
            guard derived == x else { throw .invalidKey("the public key x does not match the private key") }
        } else {
            do { _ = try Curve25519.Signing.PublicKey(rawRepresentation: x) } catch {
                throw .invalidKey("x is not a valid \(curve.name) public key")
            }
        }
        return .okp(curve: curve, x: x, d: d)
    }

    static func ec2FromPrivate(curve: COSECurve, d: Data) throws(COSEError) -> Material {
        guard curve.keyType == .ec2 else { throw .invalidKey("curve \(curve.name) is not an EC2 curve") }
        try checkLength(d, "d", curve)
        let point: Data
        do {
            switch curve {
            case .p256: point = try P256.Signing.PrivateKey(rawRepresentation: d).publicKey.x963Representation
            case .p384: point = try P384.Signing.PrivateKey(rawRepresentation: d).publicKey.x963Representation
            case .p521: point = try P521.Signing.PrivateKey(rawRepresentation: d).publicKey.x963Representation
            case .ed25519: point = Data()  // crash-safe: excluded by the keyType guard above.
            }
        } catch {
            throw .invalidKey("d is out of range for \(curve.name)")
        }
        let (x, y) = try splitPoint(point, curve: curve)
        return .ec2(curve: curve, x: x, y: y, d: d)
    }

    static func okpFromPrivate(curve: COSECurve, d: Data) throws(COSEError) -> Material {
        guard curve.keyType == .okp else { throw .invalidKey("curve \(curve.name) is not an OKP curve") }
        try checkLength(d, "d", curve)
        do {
            let x = try Curve25519.Signing.PrivateKey(rawRepresentation: d).publicKey.rawRepresentation
            return .okp(curve: curve, x: x, d: d)
        } catch {
            throw .invalidKey("d is not a valid \(curve.name) private key")
        }
    }

    /// Splits an uncompressed SEC 1 point `04 ‖ x ‖ y` into its coordinates.
    static func splitPoint(_ point: Data, curve: COSECurve) throws(COSEError) -> (x: Data, y: Data) {
        let n = curve.coordinateLength
        let bytes = [UInt8](point)
        guard bytes.count == 1 + 2 * n, bytes.first == 0x04 else {
            throw .invalidKey("not an uncompressed \(curve.name) point")
        }
        // crash-safe: both ranges lie within the 1 + 2n bytes checked above.
        return (Data(bytes[1...n]), Data(bytes[(n + 1)...(2 * n)]))
    }
}

extension COSEKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        var parts: [String] = []
        switch material {
        case .ec2(let c, _, _, _), .okp(let c, _, _): parts.append("\(keyType) \(c.name)")
        case .symmetric(let k): parts.append("Symmetric \(k.count * 8)-bit")
        }
        if let keyID { parts.append("kid \(keyID.map { String(format: "%02x", $0) }.joined())") }
        if let algorithm { parts.append("alg \(algorithm.name)") }
        parts.append(isPrivate ? "private" : "public")
        return "COSEKey(" + parts.joined(separator: ", ") + ")"
    }

    public var debugDescription: String { description }

    /// Reflection (`dump`, debuggers) shows the description only, never key material.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}

extension COSEKey.Material: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        switch self {
        case .ec2(let c, _, _, let d): return "EC2 \(c.name) \(d == nil ? "public" : "private") key"
        case .okp(let c, _, let d): return "OKP \(c.name) \(d == nil ? "public" : "private") key"
        case .symmetric(let k): return "Symmetric \(k.count * 8)-bit key"
        }
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
