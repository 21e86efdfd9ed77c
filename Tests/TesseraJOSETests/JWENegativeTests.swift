import Crypto
import Foundation
import TesseraCore
import Testing

@testable import TesseraJOSE

/// One test per JWE rule; each asserts its own error.
@Suite("JWE negative matrix")
struct JWENegativeTests {
    static let recipient = JWEKeyAgreementKey.p256(P256.KeyAgreement.PrivateKey())
    static let ephemeral = P256.KeyAgreement.PrivateKey()
    static var epk: String { JWK(publicKey: ephemeral.publicKey).jsonObject.description }

    /// A JWE whose header is the text given; the other segments are well-formed (12-byte IV, 16-byte tag).
    static func crafted(
        header: String, encryptedKey: String = "", iv: Data = Data(repeating: 1, count: 12),
        ciphertext: Data = Data([1, 2, 3]), tag: Data = Data(repeating: 2, count: 16)
    ) -> String {
        [Base64URL.encode(Data(header.utf8)), encryptedKey, Base64URL.encode(iv), Base64URL.encode(ciphertext), Base64URL.encode(tag)]
            .joined(separator: ".")
    }

    static func validHeader(_ extra: String = "") -> String {
        #"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(epk)\#(extra)}"#
    }

    static func parseError(_ text: String, limits: JOSELimits = .default) -> JOSEError? {
        joseError { _ = try CompactJWE(parsing: text, limits: limits) }
    }

    static func decryptError(_ text: String, key: JWEKeyAgreementKey = recipient) -> JOSEError? {
        joseError { _ = try CompactJWE(parsing: text).decrypt(with: key) }
    }

    static func encrypted(_ plaintext: String = "secret", enc: JWEContentEncryption = .a128gcm, apu: Data? = nil) throws -> CompactJWE {
        try CompactJWE.encrypt(Data(plaintext.utf8), to: recipient.publicJWK, enc: enc, apu: apu, random: SystemRandomSource())
    }

    @Test("the well-formed crafted JWE parses (the baseline of this matrix)") func baseline() throws {
        let jwe = try CompactJWE(parsing: Self.crafted(header: Self.validHeader()))
        #expect(jwe.encryption == .a128gcm)
        // Its tag is made up, so it fails only at the tag check.
        #expect(Self.decryptError(Self.crafted(header: Self.validHeader())) == .decryptionFailed)
    }

    @Test("a serialization over the length limit") func tooLong() {
        let text = Self.crafted(header: Self.validHeader())
        #expect(Self.parseError(text, limits: JOSELimits(maxCompactLength: 64, json: .default)) == .compactTooLong(length: text.utf8.count, limit: 64))
    }

    @Test("not five segments", arguments: ["a.b.c", "a.b.c.d", "a.b.c.d.e.f", "abc"])
    func segments(_ text: String) {
        #expect(Self.parseError(text) == .malformedCompact)
    }

    @Test("a segment that is not strict base64url") func base64() {
        let text = Self.crafted(header: Self.validHeader())
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        #expect(Self.parseError([parts[0], "", parts[2] + "=", parts[3], parts[4]].joined(separator: ".")) == .invalidBase64URL)
    }

    @Test("a header that is not JSON, or not an object") func header() {
        #expect(Self.parseError(Self.crafted(header: "{")) == .invalidHeader(.unexpectedEnd(offset: 1)))
        #expect(Self.parseError(Self.crafted(header: "1")) == .headerNotObject)
    }

    @Test("no alg") func missingAlgorithm() {
        #expect(Self.parseError(Self.crafted(header: #"{"enc":"A128GCM","epk":\#(Self.epk)}"#)) == .missingAlgorithm)
    }

    @Test("alg none") func algorithmNone() {
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"none","enc":"A128GCM"}"#)) == .algorithmNone)
    }

    @Test("key management other than direct ECDH-ES", arguments: ["ECDH-ES+A128KW", "RSA-OAEP-256", "dir", "ES256"])
    func unsupportedAlgorithm(_ alg: String) {
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"\#(alg)","enc":"A128GCM","epk":\#(Self.epk)}"#)) == .unsupportedAlgorithm(alg))
    }

    @Test("no enc") func missingEncryption() {
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","epk":\#(Self.epk)}"#)) == .missingEncryption)
    }

    @Test("enc not implemented", arguments: ["A128CBC-HS256", "A192GCM", "a128gcm"])
    func unsupportedEncryption(_ enc: String) {
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","enc":"\#(enc)","epk":\#(Self.epk)}"#)) == .unsupportedEncryption(enc))
    }

    @Test("zip present") func compression() {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(#","zip":"DEF""#))) == .unsupportedCompression("DEF"))
    }

    @Test("crit malformed, and crit naming an unknown extension") func critical() {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(#","crit":["epk"]"#))) == .invalidCritical("lists the registered parameter \"epk\""))
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(#","crit":["x"],"x":true"#))) == .unsupportedCritical(["x"]))
    }

    @Test("kid not a string") func kidType() {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(#","kid":1"#))) == .invalidHeaderParameter("kid"))
    }

    @Test("epk missing or not an object") func epkMissing() {
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","enc":"A128GCM"}"#)) == .invalidEphemeralKey("epk is missing"))
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","enc":"A128GCM","epk":"key"}"#)) == .invalidEphemeralKey("epk is not a JSON object"))
    }

    @Test("epk not on its curve (invalid-curve attack)") func epkOffCurve() throws {
        var epk = JWK(publicKey: Self.ephemeral.publicKey).jsonObject
        epk["y"] = .string(Base64URL.encode(Data(repeating: 0x07, count: 32)))
        let error = Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(epk)}"#))
        #expect(error == .invalidEphemeralKey(JOSEError.invalidJWK("x, y is not a point on P-256").description))
    }

    @Test("epk of another key type") func epkKeyType() {
        let x25519 = #"{"kty":"OKP","crv":"X25519","x":"\#(Base64URL.encode(Curve25519.KeyAgreement.PrivateKey().publicKey.rawRepresentation))"}"#
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(x25519)}"#)) == .invalidEphemeralKey("kty OKP is not EC"))
    }

    @Test("epk carrying a private key") func epkPrivate() {
        let privateEPK = JWK(privateKey: Self.ephemeral).jsonObject.description
        #expect(Self.parseError(Self.crafted(header: #"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(privateEPK)}"#)) == .invalidEphemeralKey("epk carries a private key"))
    }

    @Test("epk on another curve than the recipient key") func epkCurveMismatch() {
        let p384 = JWK(publicKey: P384.KeyAgreement.PrivateKey().publicKey).jsonObject.description
        let text = Self.crafted(header: #"{"alg":"ECDH-ES","enc":"A128GCM","epk":\#(p384)}"#)
        #expect(Self.decryptError(text) == .ephemeralKeyCurveMismatch(expected: "P-256", found: "P-384"))
    }

    @Test("apu / apv not base64url strings", arguments: [(#","apu":"QWxpY2U=""#, "apu"), (#","apv":5"#, "apv")])
    func partyInfo(_ member: String, _ name: String) {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(member))) == .invalidAgreementPartyInfo(name))
    }

    @Test("a non-empty JWE Encrypted Key") func encryptedKey() {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(), encryptedKey: "AAAA")) == .encryptedKeyNotEmpty)
    }

    @Test("an IV that is not 96 bits", arguments: [0, 8, 16])
    func iv(_ length: Int) {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(), iv: Data(repeating: 1, count: length))) == .invalidInitializationVector)
    }

    @Test("a tag that is not 128 bits", arguments: [0, 12, 15, 17])
    func tag(_ length: Int) {
        #expect(Self.parseError(Self.crafted(header: Self.validHeader(), tag: Data(repeating: 2, count: length))) == .invalidAuthenticationTag)
    }

    // MARK: decryptionFailed: one error for every key, KDF and tag problem

    @Test("another recipient key") func wrongKey() throws {
        let other = JWEKeyAgreementKey.p256(P256.KeyAgreement.PrivateKey())
        #expect(Self.decryptError(try Self.encrypted().compact, key: other) == .decryptionFailed)
    }

    @Test("a modified ciphertext, tag or IV", arguments: [2, 3, 4])
    func tampered(_ segment: Int) throws {
        var parts = try Self.encrypted().compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var bytes = try Base64URL.decode(parts[segment])
        bytes[bytes.startIndex] ^= 0x01
        parts[segment] = Base64URL.encode(bytes)
        #expect(Self.decryptError(parts.joined(separator: ".")) == .decryptionFailed)
    }

    @Test("a re-encoded protected header (same members, other bytes): the AAD is the segment as received")
    func headerBytesAreTheAAD() throws {
        let jwe = try Self.encrypted()
        var parts = jwe.compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let original = String(decoding: try Base64URL.decode(parts[0]), as: UTF8.self)
        parts[0] = Base64URL.encode(Data((" " + original).utf8))
        let respaced = try CompactJWE(parsing: parts.joined(separator: "."))
        #expect(respaced.header == jwe.header)
        #expect(joseError { _ = try respaced.decrypt(with: Self.recipient) } == .decryptionFailed)
    }

    @Test("a changed apu (another CEK)") func changedPartyInfo() throws {
        let jwe = try Self.encrypted(apu: Data("a".utf8))
        var header = jwe.header
        header["apu"] = .string(Base64URL.encode(Data("b".utf8)))
        var parts = jwe.compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[0] = Base64URL.encode(header.serialized())
        #expect(Self.decryptError(parts.joined(separator: ".")) == .decryptionFailed)
    }

    @Test("an enc switched from A256GCM to A128GCM") func switchedEncryption() throws {
        let jwe = try Self.encrypted(enc: .a256gcm)
        var header = jwe.header
        header["enc"] = "A128GCM"
        var parts = jwe.compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[0] = Base64URL.encode(header.serialized())
        #expect(Self.decryptError(parts.joined(separator: ".")) == .decryptionFailed)
    }

    // MARK: Encryption-side rules

    @Test("a recipient key that cannot do ECDH-ES") func recipientKeys() throws {
        let okp = JWK(publicKey: Curve25519.Signing.PrivateKey().publicKey)
        #expect(joseError { _ = try CompactJWE.encrypt(Data(), to: okp, enc: .a128gcm, random: SystemRandomSource()) }
            == .invalidRecipientKey("kty OKP is not EC"))
        let sig = Self.recipient.publicJWK.jsonObject.merging(["use": "sig"])
        #expect(joseError { _ = try CompactJWE.encrypt(Data(), to: try JWK(json: sig), enc: .a128gcm, random: SystemRandomSource()) }
            == .invalidRecipientKey("use is \"sig\", not \"enc\""))
        let kw = Self.recipient.publicJWK.jsonObject.merging(["alg": "ECDH-ES+A128KW"])
        #expect(joseError { _ = try CompactJWE.encrypt(Data(), to: try JWK(json: kw), enc: .a128gcm, random: SystemRandomSource()) }
            == .invalidRecipientKey("alg is \"ECDH-ES+A128KW\""))
    }

    @Test("extra header members may not override what encrypt sets", arguments: ["alg", "enc", "epk", "apu", "apv", "kid", "zip"])
    func reservedMembers(_ name: String) {
        #expect(joseError {
            _ = try CompactJWE.encrypt(Data(), to: Self.recipient.publicJWK, enc: .a128gcm, extraHeader: [name: "x"], random: SystemRandomSource())
        } == .invalidHeaderParameter(name))
    }

    @Test("a random source that returns too few bytes") func shortRandom() {
        #expect(joseError {
            _ = try CompactJWE.encrypt(Data(), to: Self.recipient.publicJWK, enc: .a128gcm, random: QueuedRandomSource([Data([1])]))
        } == .randomSourceFailure)
    }

    @Test("decrypting with a public JWK") func publicKeyDecrypt() throws {
        let jwe = try Self.encrypted()
        #expect(joseError { _ = try jwe.decrypt(with: Self.recipient.publicJWK) } == .missingPrivateKey)
    }
}

extension JSONObject {
    func merging(_ other: JSONObject) -> JSONObject {
        var result = self
        for member in other { result[member.key] = member.value }
        return result
    }
}
