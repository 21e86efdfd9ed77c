import Crypto
import Foundation
import Testing
import _CryptoExtras
import TesseraCore

@testable import TesseraJOSE

@Suite("JWK and RFC 7638 thumbprints")
struct JWKTests {
    static func thumbprintCases() throws -> [JSONValue] {
        try Fixtures.json("rfc7638-jwk-thumbprint.json").array("cases")
    }

    @Test("every thumbprint vector: canonical JSON, digest and base64url")
    func thumbprintVectors() throws {
        let cases = try Self.thumbprintCases()
        #expect(cases.count == 5)
        for vector in cases {
            let jwk = try JWK(json: try vector.object("input_jwk"))
            let name = try vector.string("name")
            #expect(String(decoding: jwk.thumbprintInput(), as: UTF8.self) == (try vector.string("canonical_json")), "\(name)")
            #expect(jwk.thumbprint() == (try Data(hex: vector.string("sha256_hex"))), "\(name)")
            #expect(jwk.thumbprintBase64URL() == (try vector.string("thumbprint_b64url")), "\(name)")
            // Members outside the required set do not change the thumbprint.
            #expect(jwk.with(kid: "other").thumbprint() == jwk.thumbprint())
        }
    }

    @Test("a JWK parsed from text keeps its JSON object and exposes kty, crv, kid, alg, use")
    func parsing() throws {
        let text = #"{"kty":"EC","kid":"ac","use":"enc","crv":"P-256","alg":"ECDH-ES","x":"YO4epjifD-KWeq1sL2tNmm36BhXnkJ0He-WqMYrp9Fk","y":"Hekpm0zfK7C-YccH5iBjcIXgf6YdUvNUac_0At55Okk"}"#
        let jwk = try JWK(parsing: Data(text.utf8))
        #expect(jwk.kty == "EC")
        #expect(jwk.crv == "P-256")
        #expect(jwk.kid == "ac")
        #expect(jwk.alg == "ECDH-ES")
        #expect(jwk.use == "enc")
        #expect(!jwk.isPrivate)
        #expect(jwk.jsonObject.keys == ["kty", "kid", "use", "crv", "alg", "x", "y"])
        #expect(jwk.thumbprintBase64URL() == "OZ5Gsj4OryAA1VqdHKrJvEo0qwZmVRt7qg48WCmg7YM")
    }

    @Test("publicJWK drops d and keeps the rest; the description never shows key material")
    func privateMaterial() throws {
        let vector = try Fixtures.json("oid4vp-1.0-8.3-encrypted-response.json").array("cases")[0]
        let privateObject = try vector.member("input").object("verifier_private_jwk")
        let jwk = try JWK(json: privateObject)
        #expect(jwk.isPrivate)
        let d = try #require(privateObject["d"]?.stringValue)
        #expect(!jwk.description.contains(d))
        #expect(!String(describing: jwk).contains(d))
        let publicJWK = jwk.publicJWK
        #expect(!publicJWK.isPrivate)
        #expect(publicJWK.jsonObject["d"] == nil)
        #expect(publicJWK.jsonObject.keys == ["kty", "kid", "use", "crv", "alg", "x", "y"])
        #expect(publicJWK.thumbprint() == jwk.thumbprint())
    }

    @Test("keys built from swift-crypto parse back to the same key", arguments: 0..<4)
    func builtKeysRoundTrip(_ kind: Int) throws {
        let jwk: JWK
        switch kind {
        case 0: jwk = JWK(privateKey: P256.Signing.PrivateKey())
        case 1: jwk = JWK(privateKey: P384.Signing.PrivateKey())
        case 2: jwk = JWK(privateKey: P521.Signing.PrivateKey())
        default: jwk = JWK(privateKey: Curve25519.Signing.PrivateKey())
        }
        let reparsed = try JWK(parsing: jwk.jsonObject.serialized())
        #expect(reparsed == jwk)
        #expect(reparsed.isPrivate)
        let signingKey = try JWSSigningKey(jwk: reparsed)
        #expect(signingKey.publicJWK == jwk.publicJWK)
    }

    @Test("a parsed EC JWK verifies with the key its point check imported, also after publicJWK and with(kid:)", arguments: 0..<3)
    func parsedECKeyVerifies(_ kind: Int) throws {
        let signingKey: JWSSigningKey
        switch kind {
        case 0: signingKey = .es256(P256.Signing.PrivateKey())
        case 1: signingKey = .es384(P384.Signing.PrivateKey())
        default: signingKey = .es512(P521.Signing.PrivateKey())
        }
        let jws = try CompactJWS.sign(header: [:], payload: Data("p".utf8), key: signingKey)
        let parsed = try JWK(parsing: signingKey.publicJWK.jsonObject.serialized())
        for jwk in [parsed, parsed.publicJWK, parsed.with(kid: "k")] {
            try jws.verify(with: JWSVerificationKey(jwk: jwk))
        }
        let other = try JWK(parsing: JWSSigningKey.es256(P256.Signing.PrivateKey()).publicJWK.jsonObject.serialized())
        if kind == 0 { #expect(throws: JOSEError.self) { try jws.verify(with: JWSVerificationKey(jwk: other)) } }
    }

    @Test("RSA public keys convert both ways and keep n, e")
    func rsa() throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let jwk = try JWK(publicKey: key.publicKey)
        #expect(jwk.kty == "RSA")
        let verificationKey = try JWSVerificationKey(jwk: jwk)
        guard case .rsa(let rebuilt) = verificationKey else {
            Issue.record("not an RSA key")
            return
        }
        #expect(rebuilt.derRepresentation == key.publicKey.derRepresentation)
    }

    // MARK: One test per JWK rule

    static let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let d = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"

    static func parse(_ text: String) -> JOSEError? {
        joseError { _ = try JWK(parsing: Data(text.utf8)) }
    }

    @Test("kty missing") func ktyMissing() {
        #expect(Self.parse(#"{"crv":"P-256"}"#) == .invalidJWK("kty is missing"))
    }

    @Test("kty not a string") func ktyType() {
        #expect(Self.parse(#"{"kty":1}"#) == .invalidJWK("kty is not a string"))
    }

    @Test("unsupported kty (oct)") func ktyOct() {
        #expect(Self.parse(#"{"kty":"oct","k":"AAAA"}"#) == .unsupportedKeyType("oct"))
    }

    @Test("unsupported EC curve") func ecCurve() {
        #expect(Self.parse(#"{"kty":"EC","crv":"secp256k1","x":"\#(Self.x)","y":"\#(Self.y)"}"#) == .unsupportedCurve("secp256k1"))
    }

    @Test("EC coordinate missing") func ecMissingY() {
        #expect(Self.parse(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)"}"#) == .invalidJWK("y is missing"))
    }

    @Test("EC coordinate of the wrong size (leading zero dropped)") func ecShortX() {
        let short = Base64URL.encode([UInt8](repeating: 0x11, count: 31))
        #expect(Self.parse(#"{"kty":"EC","crv":"P-256","x":"\#(short)","y":"\#(Self.y)"}"#)
            == .invalidJWK("x is 31 octets, expected 32"))
    }

    @Test("EC coordinate not base64url") func ecBadBase64() {
        #expect(Self.parse(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)=","y":"\#(Self.y)"}"#) == .invalidJWK("x is not base64url"))
    }

    @Test("EC point not on the curve") func ecOffCurve() {
        let badY = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5aw"
        #expect(Self.parse(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(badY)"}"#)
            == .invalidJWK("x, y is not a point on P-256"))
    }

    @Test("EC private d not matching x, y") func ecWrongD() {
        let otherD = Base64URL.encode(P256.Signing.PrivateKey().rawRepresentation)
        #expect(Self.parse(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(Self.y)","d":"\#(otherD)"}"#)
            == .invalidJWK("d does not match x, y"))
    }

    @Test("OKP key of the wrong size") func okpSize() {
        let short = Base64URL.encode([UInt8](repeating: 0x22, count: 29))
        #expect(Self.parse(#"{"kty":"OKP","crv":"Ed25519","x":"\#(short)"}"#) == .invalidJWK("x is 29 octets, expected 32"))
    }

    @Test("OKP private d not matching x") func okpWrongD() {
        let key = Curve25519.Signing.PrivateKey()
        let other = Curve25519.Signing.PrivateKey()
        let text = #"{"kty":"OKP","crv":"Ed25519","x":"\#(Base64URL.encode(key.publicKey.rawRepresentation))","d":"\#(Base64URL.encode(other.rawRepresentation))"}"#
        #expect(Self.parse(text) == .invalidJWK("d does not match x"))
    }

    @Test("unsupported OKP curve") func okpCurve() {
        #expect(Self.parse(#"{"kty":"OKP","crv":"Ed999","x":"\#(Self.x)"}"#) == .unsupportedCurve("Ed999"))
    }

    @Test("the other §8.3 client_metadata keys: X25519 and P-384 parse; the X448 example is 57 octets, not 56, and is refused")
    func otherClientMetadataKeys() throws {
        let vector = try Fixtures.json("oid4vp-1.0-8.3-encrypted-response.json").array("cases")[0]
        let keys = try vector.member("input").array("other_client_metadata_jwks")
        let x25519 = try JWK(json: try #require(keys[0].objectValue))
        #expect(x25519.crv == "X25519")
        #expect(x25519.thumbprint().count == 32)
        #expect(joseError { _ = try JWSVerificationKey(jwk: x25519) } == .invalidJWK("use is \"enc\", not \"sig\""))
        #expect(joseError { _ = try JWEKeyAgreementKey(jwk: x25519) } == .unsupportedCurve("X25519"))
        #expect(try JWK(json: try #require(keys[1].objectValue)).crv == "P-384")
        #expect(joseError { _ = try JWK(json: try #require(keys[2].objectValue)) } == .invalidJWK("x is 57 octets, expected 56"))
    }

    @Test("an Ed448 public key parses (key sets, thumbprints) but cannot verify here")
    func ed448() throws {
        let jwk = try JWK(parsing: Data(#"{"kty":"OKP","crv":"Ed448","x":"\#(Base64URL.encode([UInt8](repeating: 9, count: 57)))"}"#.utf8))
        #expect(jwk.thumbprint().count == 32)
        #expect(joseError { _ = try JWSVerificationKey(jwk: jwk) } == .unsupportedCurve("Ed448"))
    }

    @Test("RSA n missing") func rsaMissingN() {
        #expect(Self.parse(#"{"kty":"RSA","e":"AQAB"}"#) == .invalidJWK("n is missing"))
    }

    @Test("RSA modulus below 2048 bits is refused for verification") func rsaShort() throws {
        let jwk = try JWK(parsing: Data(#"{"kty":"RSA","n":"\#(Base64URL.encode([UInt8](repeating: 0xC5, count: 128)))","e":"AQAB"}"#.utf8))
        #expect(joseError { _ = try JWSVerificationKey(jwk: jwk) } == .invalidJWK("n, e is not an RSA public key of at least 2048 bits"))
    }

    @Test("common members with the wrong type", arguments: [
        (#""kid":7"#, "kid is not a string"), (#""use":true"#, "use is not a string"), (#""alg":[]"#, "alg is not a string"),
        (#""key_ops":"sign""#, "key_ops is not an array"), (#""key_ops":["sign","sign"]"#, "key_ops repeats sign"),
        (#""key_ops":[1]"#, "key_ops holds a non-string"), (#""x5c":[1]"#, "x5c is not an array of strings"),
    ])
    func commonMembers(_ member: String, _ reason: String) {
        #expect(Self.parse(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(Self.y)",\#(member)}"#) == .invalidJWK(reason))
    }

    @Test("not a JSON object") func notObject() {
        #expect(Self.parse("[1]") == .invalidJWK("not a JSON object"))
    }

    @Test("a signing key needs the private part") func signingNeedsPrivate() throws {
        let jwk = try JWK(parsing: Data(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(Self.y)"}"#.utf8))
        #expect(joseError { _ = try JWSSigningKey(jwk: jwk) } == .missingPrivateKey)
        let full = try JWK(parsing: Data(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(Self.y)","d":"\#(Self.d)"}"#.utf8))
        #expect(try JWSSigningKey(jwk: full).algorithm == .es256)
    }

    @Test("a verification key refuses use enc and key_ops without verify") func verificationUse() throws {
        let enc = try JWK(parsing: Data(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(Self.y)","use":"enc"}"#.utf8))
        #expect(joseError { _ = try JWSVerificationKey(jwk: enc) } == .invalidJWK("use is \"enc\", not \"sig\""))
        let ops = try JWK(parsing: Data(#"{"kty":"EC","crv":"P-256","x":"\#(Self.x)","y":"\#(Self.y)","key_ops":["sign"]}"#.utf8))
        #expect(joseError { _ = try JWSVerificationKey(jwk: ops) } == .invalidJWK("key_ops does not allow verify"))
    }

    @Test("PEM signing keys: PKCS#8 and SEC 1 for every curve, PKCS#8 for Ed25519; other text is refused")
    func pem() throws {
        #expect(try JWSSigningKey(pem: P256.Signing.PrivateKey().pemRepresentation).algorithm == .es256)
        #expect(try JWSSigningKey(pem: P384.Signing.PrivateKey().pemRepresentation).algorithm == .es384)
        #expect(try JWSSigningKey(pem: P521.Signing.PrivateKey().pemRepresentation).algorithm == .es512)
        #expect(try JWSSigningKey(pem: Curve25519.Signing.PrivateKey().pemRepresentation).algorithm == .edDSA)
        let sec1 = """
            -----BEGIN EC PRIVATE KEY-----
            \(try sec1Base64())
            -----END EC PRIVATE KEY-----
            """
        #expect(try JWSSigningKey(pem: sec1).algorithm == .es256)
        #expect(joseError { _ = try JWSSigningKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") } == .invalidPEM)
    }

    /// SEC 1 ECPrivateKey DER of a fresh P-256 key: SEQUENCE { 1, OCTET STRING d, [0] prime256v1 }.
    private func sec1Base64() throws -> String {
        let d = P256.Signing.PrivateKey().rawRepresentation
        var der: [UInt8] = [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + d
        der += [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let text = Data(der).base64EncodedString()
        // PEM lines hold at most 64 characters (RFC 7468 §2).
        return stride(from: 0, to: text.count, by: 64).map { offset in
            let start = text.index(text.startIndex, offsetBy: offset)
            return String(text[start..<(text.index(start, offsetBy: 64, limitedBy: text.endIndex) ?? text.endIndex)])
        }.joined(separator: "\n")
    }
}
