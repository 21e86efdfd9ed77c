import Crypto
import Foundation
import Testing

@testable import TesseraJOSE

@Suite("JWS vectors (RFC 7515 A.3 and derived cases)")
struct JWSVectorTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let valid: Bool
        let compact: String
        let signingInput: String?
        let payloadHex: String?
        let signatureHex: String?
        let header: JSONObject?
        var testDescription: String { name }
    }

    static func file() throws -> JSONValue { try Fixtures.json("rfc7515-a3-es256-jws.json") }

    static func vectors() throws -> [Vector] {
        try file().array("cases").map { value in
            Vector(
                name: try value.string("name"),
                valid: try value.string("expected_result") == "valid",
                compact: try value.string("jws_compact"),
                signingInput: value["signing_input_ascii"]?.stringValue,
                payloadHex: value["payload_hex"]?.stringValue,
                signatureHex: value["signature_hex"]?.stringValue,
                header: value["protected_header"]?.objectValue
            )
        }
    }

    static func publicKey() throws -> JWSVerificationKey {
        try JWSVerificationKey(jwk: JWK(json: try file().member("key").object("public_jwk")))
    }

    @Test("the file holds the seven cases the README lists")
    func count() throws {
        #expect(try Self.vectors().count == 7)
    }

    @Test("every case verifies or is rejected as expected", arguments: try vectors())
    func verdict(_ vector: Vector) throws {
        let key = try Self.publicKey()
        let error = joseError {
            let jws = try CompactJWS(parsing: vector.compact)
            try jws.verify(with: key)
        }
        if vector.valid {
            #expect(error == nil)
        } else {
            #expect(error != nil)
        }
    }

    @Test("the specific rejection of each invalid case")
    func rejections() throws {
        let key = try Self.publicKey()
        let byName = Dictionary(uniqueKeysWithValues: try Self.vectors().map { ($0.name, $0) })
        func error(_ name: String) throws -> JOSEError? {
            let vector = try #require(byName[name])
            let jws = try CompactJWS(parsing: vector.compact)
            return joseError { try jws.verify(with: key) }
        }
        #expect(try error("rfc7515-a.3-der-signature") == .derSignatureRejected)
        #expect(try error("rfc7515-a.3-tampered-signature") == .invalidSignature)
        #expect(try error("rfc7515-a.3-tampered-payload") == .invalidSignature)
    }

    @Test("parsed fields: header, payload bytes, signature and the exact signing input", arguments: try vectors())
    func fields(_ vector: Vector) throws {
        let jws = try CompactJWS(parsing: vector.compact)
        #expect(jws.compact == vector.compact)
        #expect(jws.algorithm == .es256)
        if let signingInput = vector.signingInput { #expect(String(jws.signingInput) == signingInput) }
        if let payloadHex = vector.payloadHex { #expect(jws.payload == (try Data(hex: payloadHex))) }
        if let signatureHex = vector.signatureHex { #expect(jws.signature == (try Data(hex: signatureHex))) }
        if let header = vector.header { #expect(jws.header == header) }
        let segments = vector.compact.split(separator: ".", omittingEmptySubsequences: false)
        #expect(jws.protectedHeaderSegment == segments[0])
        #expect(jws.payloadSegment == segments[1])
    }

    @Test("A.3: the payload with CR LF is verified over the received segments and reads as JSON")
    func crlfPayload() throws {
        let vector = try #require(try Self.vectors().first { $0.name == "rfc7515-a.3" })
        let jws = try CompactJWS(parsing: vector.compact)
        try jws.verify(with: try Self.publicKey())
        #expect(jws.payload.contains(0x0D))
        let claims = try jws.payloadJSON()
        #expect(claims["iss"] == "joe")
        #expect(claims["exp"] == .integer(1_300_819_380))
        #expect(claims["http://example.com/is_root"] == true)
    }

    @Test("the vector's private key signs JWS that verify with the public key, and parse back identically")
    func signWithVectorKey() throws {
        let signer = try JWSSigningKey(jwk: JWK(json: try Self.file().member("key").object("private_jwk")))
        var header = JSONObject()
        header["typ"] = "kb+jwt"
        header["kid"] = "rfc7515-a3"
        let payload = Data(#"{"nonce":"n-0S6_WzA2Mj","name":"Möbius"}"#.utf8)
        let jws = try CompactJWS.sign(header: header, payload: payload, key: signer)
        #expect(jws.header.keys == ["typ", "kid", "alg"])
        try jws.verify(with: try Self.publicKey())
        let parsed = try CompactJWS(parsing: jws.compact)
        #expect(parsed.header == jws.header)
        #expect(parsed.payload == payload)
        #expect(parsed.signingInput == jws.signingInput)
        try parsed.verify(with: try Self.publicKey())
    }
}
