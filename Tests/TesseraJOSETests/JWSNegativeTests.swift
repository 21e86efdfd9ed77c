import Crypto
import Foundation
import Testing
import TesseraCore

@testable import TesseraJOSE

/// One test per JWS rule; each asserts its own error.
@Suite("JWS negative matrix")
struct JWSNegativeTests {
    static let key = P256.Signing.PrivateKey()

    /// A correctly signed compact JWS over the header text given verbatim (so only the rule under test fails).
    static func signed(header: String, payload: String = #"{"sub":"x"}"#) throws -> String {
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(payload.utf8))
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Base64URL.encode(signature)
    }

    static func parseError(_ text: String, limits: JOSELimits = .default) -> JOSEError? {
        joseError { _ = try CompactJWS(parsing: text, limits: limits) }
    }

    static func verifyError(_ text: String, key: JWSVerificationKey = .es256(key.publicKey)) -> JOSEError? {
        joseError { try CompactJWS(parsing: text).verify(with: key) }
    }

    @Test("a compact serialization over the length limit") func tooLong() throws {
        let text = try Self.signed(header: #"{"alg":"ES256"}"#)
        let limits = JOSELimits(maxCompactLength: 20, json: .default)
        #expect(Self.parseError(text, limits: limits) == .compactTooLong(length: text.utf8.count, limit: 20))
    }

    @Test("not three segments", arguments: ["a.b", "a.b.c.d", "abc", "", "a.b.c.d.e"])
    func segments(_ text: String) {
        #expect(Self.parseError(text) == .malformedCompact)
    }

    @Test("a padded header segment") func paddedHeader() throws {
        let text = try Self.signed(header: #"{"alg":"ES256"}"#)
        let parts = text.split(separator: ".")
        #expect(Self.parseError("\(parts[0])=.\(parts[1]).\(parts[2])") == .invalidBase64URL)
    }

    @Test("a signature segment in standard base64") func standardBase64Signature() throws {
        let text = try Self.signed(header: #"{"alg":"ES256"}"#)
        #expect(Self.parseError(text.dropLast(2) + "+/") == .invalidBase64URL)
    }

    @Test("a header that is not JSON") func headerNotJSON() throws {
        #expect(Self.parseError(try Self.signed(header: #"{"alg":"ES256""#)) == .invalidHeader(.unexpectedEnd(offset: 14)))
    }

    @Test("a header with a duplicate member") func headerDuplicate() throws {
        #expect(Self.parseError(try Self.signed(header: #"{"alg":"ES256","alg":"none"}"#))
            == .invalidHeader(.duplicateMemberName("alg", offset: 15)))
    }

    @Test("a header that is JSON but not an object") func headerNotObject() throws {
        #expect(Self.parseError(try Self.signed(header: #"["alg","ES256"]"#)) == .headerNotObject)
    }

    @Test("no alg, or alg not a string", arguments: [#"{"typ":"JWT"}"#, #"{"alg":256}"#])
    func missingAlgorithm(_ header: String) throws {
        #expect(Self.parseError(try Self.signed(header: header)) == .missingAlgorithm)
    }

    @Test("alg none, in any case, with or without a signature", arguments: ["none", "None", "NONE"])
    func algorithmNone(_ name: String) throws {
        let header = Base64URL.encode(Data(#"{"alg":"\#(name)"}"#.utf8))
        let payload = Base64URL.encode(Data("{}".utf8))
        #expect(Self.parseError("\(header).\(payload).") == .algorithmNone)
        #expect(Self.parseError(try Self.signed(header: #"{"alg":"\#(name)"}"#)) == .algorithmNone)
    }

    @Test("an algorithm not implemented (HMAC, ES256K, lower-case es256)", arguments: ["HS256", "ES256K", "es256", "RS512"])
    func unsupportedAlgorithm(_ name: String) throws {
        #expect(Self.parseError(try Self.signed(header: #"{"alg":"\#(name)"}"#)) == .unsupportedAlgorithm(name))
    }

    @Test("crit malformed", arguments: [
        (#"{"alg":"ES256","crit":"exp"}"#, "not an array"),
        (#"{"alg":"ES256","crit":[]}"#, "empty array"),
        (#"{"alg":"ES256","crit":[1]}"#, "holds a non-string"),
        (#"{"alg":"ES256","crit":["x","x"],"x":1}"#, "repeats \"x\""),
        (#"{"alg":"ES256","crit":["kid"],"kid":"k"}"#, "lists the registered parameter \"kid\""),
        (#"{"alg":"ES256","crit":["exp"]}"#, "lists \"exp\", which is absent"),
    ])
    func invalidCritical(_ header: String, _ reason: String) throws {
        #expect(Self.parseError(try Self.signed(header: header)) == .invalidCritical(reason))
    }

    @Test("crit naming an extension nobody declared understood") func unsupportedCritical() throws {
        let text = try Self.signed(header: #"{"alg":"ES256","crit":["exp","b"],"exp":1,"b":2}"#)
        #expect(Self.parseError(text) == .unsupportedCritical(["exp", "b"]))
        // The caller may declare it understood.
        let jws = try CompactJWS(parsing: text, understoodCriticalParameters: ["exp", "b"])
        try jws.verify(with: .es256(Self.key.publicKey))
    }

    @Test("registered parameters of the wrong type, and RFC 7797 b64 false", arguments: [
        (#"{"alg":"ES256","kid":1}"#, "kid"), (#"{"alg":"ES256","typ":{}}"#, "typ"), (#"{"alg":"ES256","cty":null}"#, "cty"),
        (#"{"alg":"ES256","jwk":"k"}"#, "jwk"), (#"{"alg":"ES256","x5c":"MII"}"#, "x5c"), (#"{"alg":"ES256","b64":false}"#, "b64"),
    ])
    func invalidHeaderParameter(_ header: String, _ name: String) throws {
        #expect(Self.parseError(try Self.signed(header: header)) == .invalidHeaderParameter(name))
    }

    @Test("alg that does not fit the key type", arguments: [
        (#"{"alg":"ES384"}"#, 0), (#"{"alg":"EdDSA"}"#, 0), (#"{"alg":"RS256"}"#, 0), (#"{"alg":"ES256"}"#, 1), (#"{"alg":"ES256"}"#, 2),
    ])
    func algorithmKeyMismatch(_ header: String, _ keyKind: Int) throws {
        let key: JWSVerificationKey
        switch keyKind {
        case 0: key = .es256(Self.key.publicKey)
        case 1: key = .es384(P384.Signing.PrivateKey().publicKey)
        default: key = .edDSA(Curve25519.Signing.PrivateKey().publicKey)
        }
        #expect(Self.verifyError(try Self.signed(header: header), key: key) == .algorithmKeyMismatch)
    }

    @Test("an ECDSA signature in DER") func derSignature() throws {
        let input = Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Data("{}".utf8))
        let der = try Self.key.signature(for: Data(input.utf8)).derRepresentation
        #expect(Self.verifyError("\(input).\(Base64URL.encode(der))") == .derSignatureRejected)
    }

    @Test("a signature of the wrong length", arguments: [0, 63, 65, 128])
    func signatureLength(_ length: Int) throws {
        let input = Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8)) + "." + Base64URL.encode(Data("{}".utf8))
        let signature = Base64URL.encode([UInt8](repeating: 0x01, count: length))
        #expect(Self.verifyError("\(input).\(signature)") == .invalidSignatureLength(expected: 64, found: length))
    }

    @Test("an EdDSA signature of the wrong length") func edDSASignatureLength() throws {
        let key = Curve25519.Signing.PrivateKey()
        let jws = try CompactJWS.sign(header: JSONObject(), payload: Data("p".utf8), key: .edDSA(key))
        let truncated = jws.signingInput + "." + Base64URL.encode(jws.signature.prefix(61))
        #expect(Self.verifyError(truncated, key: .edDSA(key.publicKey)) == .invalidSignatureLength(expected: 64, found: 61))
    }

    @Test("a signature by another key, and a re-encoded header with the original signature") func invalidSignature() throws {
        let text = try Self.signed(header: #"{"alg":"ES256"}"#)
        #expect(Self.verifyError(text, key: .es256(P256.Signing.PrivateKey().publicKey)) == .invalidSignature)
        // Same header members, different bytes (white space): the signature no longer covers the input.
        let parts = text.split(separator: ".")
        let respaced = Base64URL.encode(Data(#"{ "alg":"ES256"}"#.utf8))
        #expect(Self.verifyError("\(respaced).\(parts[1]).\(parts[2])") == .invalidSignature)
    }

    @Test("payloadJSON on a payload that is not JSON, or not an object") func payloadJSON() throws {
        let notJSON = try CompactJWS(parsing: try Self.signed(header: #"{"alg":"ES256"}"#, payload: "not json"))
        #expect(joseError { _ = try notJSON.payloadJSON() } == .invalidPayload(.unexpectedByte(offset: 1, byte: UInt8(ascii: "o"))))
        let array = try CompactJWS(parsing: try Self.signed(header: #"{"alg":"ES256"}"#, payload: "[1]"))
        #expect(joseError { _ = try array.payloadJSON() } == .payloadNotObject)
    }

    @Test("header JSON nested beyond the limit") func headerDepth() throws {
        let header = #"{"alg":"ES256","x":[[[[1]]]]}"#
        let limits = JOSELimits(maxCompactLength: 1 << 20, json: JSONLimits(maxBytes: 1 << 20, maxDepth: 3))
        #expect(Self.parseError(try Self.signed(header: header), limits: limits) == .invalidHeader(.depthLimitExceeded(offset: 21, limit: 3)))
    }
}
