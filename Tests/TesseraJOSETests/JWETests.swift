import Crypto
import Foundation
import TesseraCore
import Testing
import _CryptoExtras

@testable import TesseraJOSE

@Suite("JWE ECDH-ES encrypt/decrypt")
struct JWETests {
    @Test("round trip for every curve and enc, with and without apu/apv", arguments: ECDHCurve.allCases, JWEContentEncryption.allCases)
    func roundTrip(_ curve: ECDHCurve, _ enc: JWEContentEncryption) throws {
        let recipient = try JWEKeyAgreementKey.generate(curve, random: SystemRandomSource())
        let plaintext = Data(#"{"vp_token":{"id":["eyJ..."]}}"#.utf8)
        let plain = try CompactJWE.encrypt(plaintext, to: recipient.publicJWK, enc: enc, random: SystemRandomSource())
        #expect(try CompactJWE(parsing: plain.compact).decrypt(with: recipient) == plaintext)
        let withParties = try CompactJWE.encrypt(
            plaintext, to: recipient.publicJWK, enc: enc, kid: "k1", apu: Data("wallet-nonce".utf8), apv: Data("verifier-nonce".utf8),
            random: SystemRandomSource())
        let parsed = try CompactJWE(parsing: withParties.compact)
        #expect(parsed.keyID == "k1")
        #expect(parsed.agreementPartyUInfo == Data("wallet-nonce".utf8))
        #expect(parsed.agreementPartyVInfo == Data("verifier-nonce".utf8))
        #expect(parsed.encryption == enc)
        #expect(parsed.ephemeralPublicKey.crv == curve.rawValue)
        #expect(try parsed.decrypt(with: recipient) == plaintext)
        #expect(try parsed.decrypt(with: recipient.privateJWK) == plaintext)
    }

    @Test("the header is alg, enc, kid, epk, apu, apv then the extra members, and the encryption is reproducible from the random source")
    func headerLayoutAndDeterminism() throws {
        let recipient = try JWEKeyAgreementKey.generate(.p256, random: SeededRandomSource(seed: 1))
        let make = { () throws(JOSEError) -> CompactJWE in
            try CompactJWE.encrypt(
                Data("hello".utf8), to: recipient.publicJWK, enc: .a256gcm, kid: "ac", apu: Data([1]), apv: Data([2]),
                extraHeader: ["typ": "oauth-authz-req+jwt"], random: SeededRandomSource(seed: 7))
        }
        let first = try make()
        #expect(first.header.keys == ["alg", "enc", "kid", "epk", "apu", "apv", "typ"])
        #expect(first.header["alg"] == "ECDH-ES")
        #expect(first.header["enc"] == "A256GCM")
        #expect(first.compact.contains(".."))
        #expect(try make().compact == first.compact)
        #expect(try CompactJWE(parsing: first.compact).header == first.header)
    }

    @Test("empty plaintext encrypts and decrypts")
    func emptyPlaintext() throws {
        let recipient = try JWEKeyAgreementKey.generate(.p256, random: SystemRandomSource())
        let jwe = try CompactJWE.encrypt(Data(), to: recipient.publicJWK, enc: .a128gcm, random: SystemRandomSource())
        #expect(jwe.ciphertext.isEmpty)
        #expect(try CompactJWE(parsing: jwe.compact).decrypt(with: recipient) == Data())
    }

    @Test("the recipient key's description and errors never show d")
    func noSecretsInDescriptions() throws {
        let key = try JWEKeyAgreementKey.generate(.p256, random: SystemRandomSource())
        let d = try #require(key.privateJWK.jsonObject["d"]?.stringValue)
        #expect(!String(describing: key).contains(d))
        #expect(!String(describing: key.privateJWK).contains(d))
        #expect(String(describing: key) == "JWEKeyAgreementKey(P-256)")
    }
}
