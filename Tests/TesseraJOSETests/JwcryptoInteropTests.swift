import Crypto
import Foundation
import TesseraCore
import Testing
import _CryptoExtras

@testable import TesseraJOSE

/// Interop with PyPI jwcrypto, both ways, through Fixtures/jwcrypto_peer.py.
///
/// The Python peer runs from `TESSERA_PYTHON` or `<package root>/.build/pyenv/bin/python3` (set up by
/// scripts/test). If neither exists these tests fail; they are never skipped.
@Suite("jwcrypto interop")
struct JwcryptoInteropTests {
    struct PeerResult {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    func peer(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> PeerResult? {
        let script = try Fixtures.url("jwcrypto_peer.py")
        guard let output = try PythonPeer.run([script.path] + arguments, sourceLocation: sourceLocation) else { return nil }
        let result = PeerResult(
            status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self), stderr: output.stderr)
        if result.status == 2 {
            Issue.record("jwcrypto peer unusable: \(result.stderr)", sourceLocation: sourceLocation)
            return nil
        }
        return result
    }

    static func json(_ jwk: JWK) -> String { jwk.jsonObject.description }

    // MARK: JWS

    @Test("jwcrypto signs, TesseraJOSE verifies", arguments: JOSEAlgorithm.allCases)
    func theirJWSOurVerify(_ algorithm: JOSEAlgorithm) throws {
        let payload = Data(#"{"iss":"jwcrypto","name":"Möbius"}"#.utf8)
        let result = try #require(try peer(["sign", algorithm.rawValue, payload.hex]))
        #expect(result.status == 0, "jwcrypto: \(result.stderr)")
        try #require(result.lines.count == 2, "unexpected peer output: \(result.stdout)")
        let key = try JWSVerificationKey(jwk: JWK(parsing: Data(result.lines[0].utf8)))
        let jws = try CompactJWS(parsing: result.lines[1])
        #expect(jws.algorithm == algorithm)
        #expect(jws.keyID == "jwcrypto")
        #expect(jws.payload == payload)
        try jws.verify(with: key)
        // Sanity: the same signature over another payload does not verify.
        let forged = try CompactJWS(
            parsing: "\(jws.protectedHeaderSegment).\(Base64URL.encode(Data("{}".utf8))).\(Base64URL.encode(jws.signature))")
        #expect(joseError { try forged.verify(with: key) } == .invalidSignature)
    }

    @Test("TesseraJOSE signs, jwcrypto verifies", arguments: [JOSEAlgorithm.es256, .es384, .es512, .edDSA])
    func ourJWSTheirVerify(_ algorithm: JOSEAlgorithm) throws {
        let key: JWSSigningKey
        switch algorithm {
        case .es256: key = .es256(P256.Signing.PrivateKey())
        case .es384: key = .es384(P384.Signing.PrivateKey())
        case .es512: key = .es512(P521.Signing.PrivateKey())
        default: key = .edDSA(Curve25519.Signing.PrivateKey())
        }
        let payload = Data(#"{"iss":"tessera","nonce":"n-0S6_WzA2Mj"}"#.utf8)
        let jws = try CompactJWS.sign(header: ["typ": "kb+jwt", "kid": "swift"], payload: payload, key: key)
        let result = try #require(try peer(["verify", Self.json(key.publicJWK), jws.compact]))
        #expect(result.status == 0, "jwcrypto: \(result.stdout) \(result.stderr)")
        #expect(result.lines == ["valid \(payload.hex)"])

        // Sanity: jwcrypto rejects a tampered payload.
        let tampered = "\(jws.protectedHeaderSegment).\(Base64URL.encode(Data("{}".utf8))).\(Base64URL.encode(jws.signature))"
        let rejected = try #require(try peer(["verify", Self.json(key.publicJWK), tampered]))
        #expect(rejected.status == 1, "jwcrypto accepted a tampered JWS: \(rejected.stdout)")
    }

    // MARK: JWE

    static let jweCases: [(ECDHCurve, JWEContentEncryption, Bool)] = [
        (.p256, .a128gcm, false), (.p256, .a256gcm, true), (.p384, .a128gcm, true), (.p521, .a256gcm, false),
    ]

    @Test("jwcrypto encrypts (ECDH-ES), TesseraJOSE decrypts", arguments: jweCases.indices)
    func theirJWEOurDecrypt(_ index: Int) throws {
        let (curve, enc, parties) = Self.jweCases[index]
        let recipient = try JWEKeyAgreementKey.generate(curve, random: SystemRandomSource())
        let plaintext = Data(#"{"vp_token":{"pid":["eyJhbGciOi..."]}}"#.utf8)
        let arguments = ["encrypt", Self.json(recipient.publicJWK), enc.rawValue, plaintext.hex] + (parties ? ["QWxpY2U", "Qm9i"] : [])
        let result = try #require(try peer(arguments))
        #expect(result.status == 0, "jwcrypto: \(result.stderr)")
        let jwe = try CompactJWE(parsing: try #require(result.lines.first))
        #expect(jwe.encryption == enc)
        #expect(jwe.agreementPartyUInfo == (parties ? Data("Alice".utf8) : nil))
        #expect(try jwe.decrypt(with: recipient) == plaintext)
        let other = try JWEKeyAgreementKey.generate(curve, random: SystemRandomSource())
        #expect(joseError { _ = try jwe.decrypt(with: other) } == .decryptionFailed)
    }

    @Test("TesseraJOSE encrypts (ECDH-ES), jwcrypto decrypts", arguments: jweCases.indices)
    func ourJWETheirDecrypt(_ index: Int) throws {
        let (curve, enc, parties) = Self.jweCases[index]
        let recipient = try JWEKeyAgreementKey.generate(curve, random: SystemRandomSource())
        let plaintext = Data("{\n \"vp_token\": {}\n}".utf8)
        let jwe = try CompactJWE.encrypt(
            plaintext, to: recipient.publicJWK, enc: enc, kid: "ac",
            apu: parties ? Data("wallet".utf8) : nil, apv: parties ? Data("verifier".utf8) : nil, random: SystemRandomSource())
        let result = try #require(try peer(["decrypt", Self.json(recipient.privateJWK), jwe.compact]))
        #expect(result.status == 0, "jwcrypto: \(result.stdout) \(result.stderr)")
        #expect(result.lines == [plaintext.hex])

        // Sanity: jwcrypto fails on a modified tag.
        var parts = jwe.compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var tag = try Base64URL.decode(parts[4])
        tag[tag.startIndex] ^= 0x80
        parts[4] = Base64URL.encode(tag)
        let rejected = try #require(try peer(["decrypt", Self.json(recipient.privateJWK), parts.joined(separator: ".")]))
        #expect(rejected.status == 1, "jwcrypto accepted a modified tag: \(rejected.stdout)")
    }

    // MARK: Thumbprints

    @Test("RFC 7638 thumbprints agree for fresh EC, OKP and RSA keys")
    func thumbprints() throws {
        let keys: [JWK] = [
            JWK(publicKey: P256.Signing.PrivateKey().publicKey),
            JWK(publicKey: P521.Signing.PrivateKey().publicKey),
            JWK(publicKey: Curve25519.Signing.PrivateKey().publicKey),
            try JWK(publicKey: try _RSA.Signing.PrivateKey(keySize: .bits2048).publicKey),
        ]
        for key in keys {
            let result = try #require(try peer(["thumbprint", Self.json(key)]))
            #expect(result.status == 0, "jwcrypto: \(result.stderr)")
            #expect(result.lines == [key.thumbprintBase64URL()], "\(key)")
        }
    }
}
