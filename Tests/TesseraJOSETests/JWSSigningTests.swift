import Crypto
import Foundation
import TesseraTrust
import Testing
import _CryptoExtras
import TesseraCore

@testable import TesseraJOSE
import TesseraTrustTesting

@Suite("JWS signing and verification for every algorithm")
struct JWSSigningTests {
    static func key(_ algorithm: JOSEAlgorithm) -> JWSSigningKey? {
        switch algorithm {
        case .es256: return .es256(P256.Signing.PrivateKey())
        case .es384: return .es384(P384.Signing.PrivateKey())
        case .es512: return .es512(P521.Signing.PrivateKey())
        case .edDSA: return .edDSA(Curve25519.Signing.PrivateKey())
        case .rs256, .ps256: return nil
        }
    }

    static let signingAlgorithms: [JOSEAlgorithm] = [.es256, .es384, .es512, .edDSA]

    @Test("sign then verify through the public JWK; signature sizes are the raw R || S sizes", arguments: signingAlgorithms)
    func roundTrip(_ algorithm: JOSEAlgorithm) throws {
        let key = try #require(Self.key(algorithm))
        let jws = try CompactJWS.sign(header: ["typ": "JWT"], claims: ["sub": "user", "iat": 1_683_000_000], key: key)
        #expect(jws.algorithm == algorithm)
        #expect(jws.header["alg"] == .string(algorithm.rawValue))
        let expectedSize = [JOSEAlgorithm.es256: 64, .es384: 96, .es512: 132, .edDSA: 64][algorithm]
        #expect(jws.signature.count == expectedSize)
        let parsed = try CompactJWS(parsing: jws.compact)
        try parsed.verify(with: try JWSVerificationKey(jwk: key.publicJWK))
        #expect(try parsed.payloadJSON()["sub"] == "user")
    }

    @Test("EdDSA is deterministic: RFC 8037 A.4 signature of the A.1 key")
    func rfc8037() throws {
        let jwk = try JWK(parsing: Data(#"{"kty":"OKP","crv":"Ed25519","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#.utf8))
        let key = try JWSSigningKey(jwk: jwk)
        let jws = try CompactJWS.sign(header: JSONObject(), payload: Data("Example of Ed25519 signing".utf8), key: key)
        #expect(jws.signingInput == "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc")
        #if !canImport(Darwin)
            // BoringSSL's Ed25519 is deterministic (CryptoKit on Apple platforms hedges its signatures).
            #expect(jws.compact == "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg")
        #endif
        let published = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
        try CompactJWS(parsing: published).verify(with: try JWSVerificationKey(jwk: jwk.publicJWK))
        try CompactJWS(parsing: jws.compact).verify(with: try JWSVerificationKey(jwk: jwk.publicJWK))
    }

    @Test("RS256 and PS256 verify (keys of 2048 bits, PSS salt of 32 octets)", arguments: [JOSEAlgorithm.rs256, .ps256])
    func rsaVerify(_ algorithm: JOSEAlgorithm) throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let header = Base64URL.encode(Data(#"{"alg":"\#(algorithm.rawValue)"}"#.utf8))
        let payload = Base64URL.encode(Data(#"{"iss":"external"}"#.utf8))
        let signingInput = Data("\(header).\(payload)".utf8)
        let padding: _RSA.Signing.Padding = algorithm == .rs256 ? .insecurePKCS1v1_5 : .PSS
        let signature = try key.signature(for: SHA256.hash(data: signingInput), padding: padding).rawRepresentation
        let jws = try CompactJWS(parsing: "\(header).\(payload).\(Base64URL.encode(signature))")
        #expect(jws.algorithm == algorithm)
        let verificationKey = try JWSVerificationKey(jwk: JWK(publicKey: key.publicKey))
        try jws.verify(with: verificationKey)
        // The other RSA padding over the same bytes does not verify.
        let otherAlgorithm = algorithm == .rs256 ? "PS256" : "RS256"
        let otherHeader = Base64URL.encode(Data(#"{"alg":"\#(otherAlgorithm)"}"#.utf8))
        let otherInput = Data("\(otherHeader).\(payload)".utf8)
        let misPadded = try key.signature(for: SHA256.hash(data: otherInput), padding: padding).rawRepresentation
        let swapped = try CompactJWS(parsing: "\(otherHeader).\(payload).\(Base64URL.encode(misPadded))")
        #expect(joseError { try swapped.verify(with: verificationKey) } == .invalidSignature)
    }

    @Test("sign keeps the given members in order and replaces a stale alg in place")
    func headerOrder() throws {
        let key = JWSSigningKey.es256(P256.Signing.PrivateKey())
        let jws = try CompactJWS.sign(header: ["alg": "RS256", "typ": "dc+sd-jwt", "kid": "k"], payload: Data(), key: key)
        #expect(jws.header.keys == ["alg", "typ", "kid"])
        #expect(jws.header["alg"] == "ES256")
        #expect(String(decoding: try Base64URL.decode(jws.protectedHeaderSegment), as: UTF8.self) == #"{"alg":"ES256","typ":"dc+sd-jwt","kid":"k"}"#)
        #expect(jws.payload.isEmpty)
        #expect(jws.payloadSegment.isEmpty)
        try CompactJWS(parsing: jws.compact).verify(with: key.verificationKey)
    }

    @Test("the signing input is the text as received, even when it is not how this library would serialize")
    func receivedBytesAreSigned() throws {
        let key = P256.Signing.PrivateKey()
        // White space and member order this library would never produce.
        let header = Base64URL.encode(Data("{ \"typ\" : \"JWT\",\n \"alg\":\"ES256\" }".utf8))
        let payload = Base64URL.encode(Data("{\"b\":1,  \"a\":2}".utf8))
        let input = "\(header).\(payload)"
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        let jws = try CompactJWS(parsing: "\(input).\(Base64URL.encode(signature))")
        #expect(String(jws.signingInput) == input)
        try jws.verify(with: .es256(key.publicKey))
    }

    @Test("a certificate's key verifies (JWSVerificationKey(certificate:))")
    func certificateKey() throws {
        var random = SystemRandomNumberGenerator()
        let now = Date()
        let root = try X5CTestPKI.issueRoot(
            .init(commonName: "Root", notBefore: now.addingTimeInterval(-60), notAfter: now.addingTimeInterval(3600)), random: &random)
        guard case .p256(let privateKey) = root.privateKey else {
            Issue.record("expected a P-256 key")
            return
        }
        let jws = try CompactJWS.sign(header: JSONObject(), payload: Data("x".utf8), key: .es256(privateKey))
        try jws.verify(with: try JWSVerificationKey(certificate: root.certificate))
    }
}
