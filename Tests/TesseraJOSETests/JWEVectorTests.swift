import Crypto
import Foundation
import TesseraCore
import Testing

@testable import TesseraJOSE

/// Hands out fixed bytes, in order (for reproducing a JWE from known keys and IVs).
final class QueuedRandomSource: RandomSource, @unchecked Sendable {
    private let lock = NSLock()
    private var queue: [Data]

    init(_ queue: [Data]) { self.queue = queue }

    func bytes(_ count: Int) -> Data {
        lock.lock()
        defer { lock.unlock() }
        guard !queue.isEmpty else { return Data() }
        return queue.removeFirst()
    }
}

@Suite("JWE vectors: OpenID4VP 1.0 §8.3 and RFC 7518 Appendix C")
struct JWEVectorTests {
    static func oid4vp() throws -> JSONValue { try Fixtures.json("oid4vp-1.0-8.3-encrypted-response.json").array("cases")[0] }
    static func appendixC() throws -> JSONValue { try Fixtures.json("rfc7518-appendix-c-ecdh-es.json").array("cases")[0] }

    @Test("§8.3: the example JWE decrypts to its payload with the published verifier key")
    func oid4vpDecrypts() throws {
        let vector = try Self.oid4vp()
        let input = try vector.member("input")
        let jwe = try CompactJWE(parsing: try input.string("jwe_compact"))
        let key = try JWEKeyAgreementKey(jwk: JWK(json: try input.object("verifier_private_jwk")))
        let plaintext = try jwe.decrypt(with: key)
        let expected = try vector.member("expected")
        #expect(plaintext == (try Data(hex: expected.string("plaintext_hex"))))
        #expect(String(decoding: plaintext, as: UTF8.self) == (try expected.string("plaintext")))
        #expect(try JSONValue.parse(plaintext) == .object(try expected.object("payload_json")))
    }

    @Test("§8.3: every intermediate (header, AAD, IV, ciphertext, tag, Z, CEK) is what the pack recomputed")
    func oid4vpIntermediates() throws {
        let vector = try Self.oid4vp()
        let input = try vector.member("input")
        let intermediates = try vector.member("intermediates")
        let jwe = try CompactJWE(parsing: try input.string("jwe_compact"))
        #expect(jwe.header == (try intermediates.object("protected_header")))
        #expect(jwe.keyID == "ac")
        #expect(jwe.encryption == .a128gcm)
        #expect(jwe.agreementPartyUInfo == nil && jwe.agreementPartyVInfo == nil)
        #expect(String(jwe.protectedHeaderSegment) == (try intermediates.string("aad_ascii")))
        #expect(String(jwe.protectedHeaderSegment) == (try intermediates.string("protected_header_b64url")))
        #expect(jwe.initializationVector == (try Data(hex: intermediates.string("iv_hex"))))
        #expect(jwe.ciphertext == (try Data(hex: intermediates.string("ciphertext_hex"))))
        #expect(jwe.authenticationTag == (try Data(hex: intermediates.string("tag_hex"))))

        let key = try JWEKeyAgreementKey(jwk: JWK(json: try input.object("verifier_private_jwk")))
        let epk = try #require(jwe.ephemeralPublicKey.uncompressedPoint)
        let z = try #require(key.sharedSecret(withPoint: epk))
        #expect(z.withUnsafeBytes { Data($0) } == (try Data(hex: intermediates.string("Z_hex"))))
        let cek = ConcatKDF.derive(sharedSecret: z, algorithmID: "A128GCM", keyBitLength: 128, apu: Data(), apv: Data())
        #expect(cek.withUnsafeBytes { Data($0) } == (try Data(hex: intermediates.string("cek_hex"))))
    }

    @Test("Appendix C: the Concat KDF alone, from Z")
    func concatKDF() throws {
        let vector = try Self.appendixC()
        let z = try Data(hex: vector.member("intermediates").string("Z_hex"))
        let key = ConcatKDF.derive(
            sharedSecret: z, algorithmID: "A128GCM", keyBitLength: 128, apu: Data("Alice".utf8), apv: Data("Bob".utf8))
        #expect(key.withUnsafeBytes { Data($0) } == (try Data(hex: vector.member("expected").string("derived_key_hex"))))
        #expect(key.withUnsafeBytes { Base64URL.encode($0) } == "VqqN6vgjbSBcIijNcacQGg")
    }

    @Test("Concat KDF longer than one SHA-256 round uses counter 2 (512-bit output)")
    func concatKDFTwoRounds() throws {
        let z = Data(repeating: 0xAB, count: 32)
        let long = ConcatKDF.derive(sharedSecret: z, algorithmID: "X", keyBitLength: 512, apu: Data(), apv: Data())
        let otherInfo = Data([0, 0, 0, 1, UInt8(ascii: "X"), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0])
        var round2 = Data([0, 0, 0, 2])
        round2.append(z)
        round2.append(otherInfo)
        #expect(long.withUnsafeBytes { Data($0) }.suffix(32) == Data(SHA256.hash(data: round2)))
    }

    @Test("Appendix C: ECDH of Bob's static key with Alice's ephemeral key gives Z")
    func appendixCKeyAgreement() throws {
        let vector = try Self.appendixC()
        let input = try vector.member("input")
        let bob = try JWEKeyAgreementKey(jwk: JWK(json: try input.object("bob_static_jwk")))
        let alice = try JWK(json: try input.object("alice_ephemeral_jwk"))
        let alicePoint = try #require(alice.uncompressedPoint)
        let z = try #require(bob.sharedSecret(withPoint: alicePoint))
        #expect(z.withUnsafeBytes { Data($0) } == (try Data(hex: vector.member("intermediates").string("Z_hex"))))
    }

    @Test("Appendix C end to end: a JWE made with Alice's ephemeral key and apu/apv decrypts with Bob's key")
    func appendixCEndToEnd() throws {
        let vector = try Self.appendixC()
        let input = try vector.member("input")
        let alice = try JWK(json: try input.object("alice_ephemeral_jwk"))
        guard case .ec(_, _, _, let aliceD?) = alice.material else {
            Issue.record("Alice's key has no d")
            return
        }
        let iv = Data(repeating: 0x42, count: 12)
        let bobPrivate = try JWK(json: try input.object("bob_static_jwk"))
        let jwe = try CompactJWE.encrypt(
            Data("Appendix C".utf8), to: bobPrivate.publicJWK, enc: .a128gcm,
            apu: Data("Alice".utf8), apv: Data("Bob".utf8), random: QueuedRandomSource([aliceD, iv]))
        #expect(jwe.header["epk"]?.objectValue == alice.publicJWK.jsonObject)
        #expect(jwe.header["apu"] == "QWxpY2U")
        #expect(jwe.header["apv"] == "Qm9i")
        #expect(jwe.initializationVector == iv)
        let parsed = try CompactJWE(parsing: jwe.compact)
        #expect(try parsed.decrypt(with: bobPrivate) == Data("Appendix C".utf8))
        // The CEK is the published derived key: decrypting by hand with it works.
        let cek = SymmetricKey(data: try Data(hex: vector.member("expected").string("derived_key_hex")))
        let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: parsed.ciphertext, tag: parsed.authenticationTag)
        #expect(try AES.GCM.open(box, using: cek, authenticating: Data(parsed.protectedHeaderSegment.utf8)) == Data("Appendix C".utf8))
    }
}
