import Crypto
import Foundation
import TesseraCore

/// A JSON Web Key (RFC 7517) of `kty` EC (P-256/384/521, RFC 7518 §6.2), OKP (Ed25519, X25519, and — for
/// thumbprints and key sets only — Ed448/X448, RFC 8037 §2) or RSA (public, RFC 7518 §6.3).
///
/// Parsing validates the key: coordinates of the exact size, the EC point on its curve, a private `d` that
/// matches the public part, and the types of the common members. The JSON object is kept as parsed.
/// Equality compares the JSON objects. The description never shows key material.
public struct JWK: Sendable, Hashable, CustomStringConvertible {
    /// The key's JSON object, as parsed or as built.
    public let jsonObject: JSONObject
    /// The validated key material.
    let material: Material
    /// The public key of a parsed EC JWK, imported by the point check (nil for JWKs built from swift-crypto keys
    /// and other key types).
    let ecPublicKey: ECPublicKey?

    enum Material: Sendable, Hashable {
        case ec(ECCurve, x: Data, y: Data, d: Data?)
        case okp(OKPCurve, x: Data, d: Data?)
        case rsa(n: Data, e: Data, hasPrivateMembers: Bool)
    }

    /// Members that hold private key material (RFC 7518 §6.2.2, §6.3.2; RFC 8037 §2).
    static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Validates `json` as a JWK.
    public init(json: JSONObject) throws(JOSEError) {
        guard let kty = json["kty"] else { throw .invalidJWK("kty is missing") }
        guard let kty = kty.stringValue else { throw .invalidJWK("kty is not a string") }
        try Self.checkCommonMembers(json)
        switch kty {
        case "EC":
            let crv = try Self.requiredString(json, "crv")
            guard let curve = ECCurve(rawValue: crv) else { throw .unsupportedCurve(crv) }
            let x = try Self.fixedSizeMember(json, "x", size: curve.coordinateSize)
            let y = try Self.fixedSizeMember(json, "y", size: curve.coordinateSize)
            var point = Data([0x04])
            point.append(x)
            point.append(y)
            guard let publicKey = curve.publicKey(x963: point) else {
                throw .invalidJWK("x, y is not a point on \(crv)")
            }
            var d: Data? = nil
            if json.contains("d") {
                let scalar = try Self.fixedSizeMember(json, "d", size: curve.coordinateSize)
                guard curve.publicPoint(ofPrivateScalar: scalar) == point else {
                    throw .invalidJWK("d does not match x, y")
                }
                d = scalar
            }
            material = .ec(curve, x: x, y: y, d: d)
            ecPublicKey = publicKey
        case "OKP":
            let crv = try Self.requiredString(json, "crv")
            guard let curve = OKPCurve(rawValue: crv) else { throw .unsupportedCurve(crv) }
            let x = try Self.fixedSizeMember(json, "x", size: curve.keySize)
            if curve == .ed25519, (try? Curve25519.Signing.PublicKey(rawRepresentation: x)) == nil {
                throw .invalidJWK("x is not an Ed25519 public key")
            }
            var d: Data? = nil
            if json.contains("d") {
                let secret = try Self.fixedSizeMember(json, "d", size: curve.keySize)
                guard let derived = curve.publicKey(ofPrivateKey: secret) else { throw .unsupportedCurve(crv) }
                guard derived == x else { throw .invalidJWK("d does not match x") }
                d = secret
            }
            material = .okp(curve, x: x, d: d)
            ecPublicKey = nil
        case "RSA":
            let n = try Self.base64URLMember(json, "n")
            let e = try Self.base64URLMember(json, "e")
            guard n.contains(where: { $0 != 0 }) else { throw .invalidJWK("n is zero") }
            guard e.contains(where: { $0 != 0 }) else { throw .invalidJWK("e is zero") }
            let hasPrivate = Self.privateMembers.contains { json.contains($0) }
            material = .rsa(n: n, e: e, hasPrivateMembers: hasPrivate)
            ecPublicKey = nil
        default:
            throw .unsupportedKeyType(kty)
        }
        jsonObject = json
    }

    /// Parses and validates a JWK from JSON text.
    public init(parsing bytes: some Collection<UInt8>) throws(JOSEError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw .invalidJWK("not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw .invalidJWK("not a JSON object") }
        try self.init(json: object)
    }

    init(validated json: JSONObject, material: Material, ecPublicKey: ECPublicKey? = nil) {
        self.jsonObject = json
        self.material = material
        self.ecPublicKey = ecPublicKey
    }

    // MARK: Members

    public var kty: String { jsonObject["kty"]?.stringValue ?? "" }
    public var crv: String? { jsonObject["crv"]?.stringValue }
    public var kid: String? { jsonObject["kid"]?.stringValue }
    public var alg: String? { jsonObject["alg"]?.stringValue }
    public var use: String? { jsonObject["use"]?.stringValue }
    /// `key_ops` (RFC 7517 §4.3), when present.
    public var keyOperations: [String]? { jsonObject["key_ops"]?.arrayValue?.compactMap(\.stringValue) }

    /// Whether the JWK carries private key material.
    public var isPrivate: Bool {
        switch material {
        case .ec(_, _, _, let d), .okp(_, _, let d): return d != nil
        case .rsa(_, _, let hasPrivate): return hasPrivate
        }
    }

    /// The same key without private members (`d`, and RSA's `p q dp dq qi oth`); other members kept in order.
    public var publicJWK: JWK {
        guard isPrivate else { return self }
        var object = jsonObject
        for member in Self.privateMembers { object[member] = nil }
        let stripped: Material
        switch material {
        case .ec(let curve, let x, let y, _): stripped = .ec(curve, x: x, y: y, d: nil)
        case .okp(let curve, let x, _): stripped = .okp(curve, x: x, d: nil)
        case .rsa(let n, let e, _): stripped = .rsa(n: n, e: e, hasPrivateMembers: false)
        }
        return JWK(validated: object, material: stripped, ecPublicKey: ecPublicKey)
    }

    /// This JWK with `kid` set (or removed when nil), other members unchanged.
    public func with(kid: String?) -> JWK {
        var object = jsonObject
        object["kid"] = kid.map(JSONValue.string)
        return JWK(validated: object, material: material, ecPublicKey: ecPublicKey)
    }

    // MARK: RFC 7638 thumbprint

    /// The JWK SHA-256 Thumbprint (RFC 7638 §3): SHA-256 over the required members only (EC: crv, kty, x, y;
    /// OKP: crv, kty, x; RSA: e, kty, n), in lexicographic order, without white space. 32 raw bytes.
    public func thumbprint() -> Data {
        Data(SHA256.hash(data: thumbprintInput()))
    }

    /// `thumbprint()` as unpadded base64url.
    public func thumbprintBase64URL() -> String {
        Base64URL.encode(thumbprint())
    }

    /// The canonical JSON the thumbprint hashes (RFC 7638 §3.2).
    func thumbprintInput() -> [UInt8] {
        let required: [String]
        switch material {
        case .ec: required = ["crv", "kty", "x", "y"]
        case .okp: required = ["crv", "kty", "x"]
        case .rsa: required = ["e", "kty", "n"]
        }
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (position, name) in required.enumerated() {
            if position > 0 { out.append(UInt8(ascii: ",")) }
            JSONSerializer.writeString(name, into: &out)
            out.append(UInt8(ascii: ":"))
            JSONSerializer.writeString(jsonObject[name]?.stringValue ?? "", into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    public var description: String {
        var parts = ["kty: \(kty)"]
        if let crv { parts.append("crv: \(crv)") }
        if let kid { parts.append("kid: \(kid)") }
        if isPrivate { parts.append("private") }
        return "JWK(" + parts.joined(separator: ", ") + ")"
    }

    public static func == (lhs: JWK, rhs: JWK) -> Bool { lhs.jsonObject == rhs.jsonObject }
    public func hash(into hasher: inout Hasher) { hasher.combine(jsonObject) }

    // MARK: Validation helpers

    /// Types of the members RFC 7517 §4 defines for every key type.
    private static func checkCommonMembers(_ json: JSONObject) throws(JOSEError) {
        for name in ["use", "alg", "kid", "x5u", "x5t", "x5t#S256"] {
            if let value = json[name], value.stringValue == nil { throw .invalidJWK("\(name) is not a string") }
        }
        if let ops = json["key_ops"] {
            guard let array = ops.arrayValue else { throw .invalidJWK("key_ops is not an array") }
            var seen = Set<String>()
            for op in array {
                guard let name = op.stringValue else { throw .invalidJWK("key_ops holds a non-string") }
                guard seen.insert(name).inserted else { throw .invalidJWK("key_ops repeats \(name)") }
            }
        }
        if let x5c = json["x5c"] {
            guard let array = x5c.arrayValue, array.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalidJWK("x5c is not an array of strings")
            }
        }
    }

    private static func requiredString(_ json: JSONObject, _ name: String) throws(JOSEError) -> String {
        guard let value = json[name] else { throw .invalidJWK("\(name) is missing") }
        guard let text = value.stringValue else { throw .invalidJWK("\(name) is not a string") }
        return text
    }

    private static func base64URLMember(_ json: JSONObject, _ name: String) throws(JOSEError) -> Data {
        let text = try requiredString(json, name)
        guard let bytes = try? Base64URL.joseDecode(text) else { throw .invalidJWK("\(name) is not base64url") }
        guard !bytes.isEmpty else { throw .invalidJWK("\(name) is empty") }
        return bytes
    }

    private static func fixedSizeMember(_ json: JSONObject, _ name: String, size: Int) throws(JOSEError) -> Data {
        let bytes = try base64URLMember(json, name)
        guard bytes.count == size else { throw .invalidJWK("\(name) is \(bytes.count) octets, expected \(size)") }
        return bytes
    }
}
