import Foundation
import Testing
import TesseraCore
@testable import WalletProvider

/// RFC 6238 Appendix B: the published TOTP values (8 digits, 30-second steps, T0 = 0) for SHA-1, SHA-256 and
/// SHA-512 with the RFC's ASCII seeds.
struct TOTPTests {
    static let seed20 = Array("12345678901234567890".utf8)
    static let seed32 = Array("12345678901234567890123456789012".utf8)
    static let seed64 = Array("1234567890123456789012345678901234567890123456789012345678901234".utf8)

    static let vectors: [(time: TimeInterval, sha1: String, sha256: String, sha512: String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    @Test func rfc6238AppendixB() {
        for vector in Self.vectors {
            let instant = Date(timeIntervalSince1970: vector.time)
            #expect(TOTP(secret: Self.seed20, algorithm: .sha1, digits: 8).code(at: instant) == vector.sha1)
            #expect(TOTP(secret: Self.seed32, algorithm: .sha256, digits: 8).code(at: instant) == vector.sha256)
            #expect(TOTP(secret: Self.seed64, algorithm: .sha512, digits: 8).code(at: instant) == vector.sha512)
        }
    }

    @Test func windowAcceptsOneStepOfDriftAndNoMore() {
        let totp = TOTP(secret: Self.seed20)
        let now = Date(timeIntervalSince1970: 1_111_111_111)
        let step = totp.counter(at: now)
        #expect(totp.matchingCounter(totp.code(counter: step), at: now) == step)
        #expect(totp.matchingCounter(totp.code(counter: step - 1), at: now) == step - 1)
        #expect(totp.matchingCounter(totp.code(counter: step + 1), at: now) == step + 1)
        #expect(totp.matchingCounter(totp.code(counter: step - 2), at: now) == nil)
        #expect(totp.matchingCounter("12345", at: now) == nil)
        #expect(totp.matchingCounter("", at: now) == nil)
    }

    @Test func base32RoundTripAndProvisioningURI() throws {
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")  // RFC 4648 §10 (unpadded)
        #expect(Base32.decode("MZXW6YTBOI") == Array("foobar".utf8))
        #expect(Base32.decode("MZXW6YTB0I") == nil)  // '0' is not in the alphabet
        let totp = try #require(TOTP(base32Secret: Base32.encode(Self.seed20)))
        #expect(totp.secret == Self.seed20)
        // An authenticator's copy of the secret: lower case, padded to a multiple of eight (RFC 4648 §3.2).
        #expect(TOTP(base32Secret: "mzxw6ytboi======")?.secret == Array("foobar".utf8))
        #expect(TOTP(base32Secret: "MZXW6YTB0I") == nil)
        #expect(TOTP(base32Secret: "") == nil)
        let uri = totp.provisioningURI(account: "a@b.example", issuer: "Tessera Wallet Provider")
        #expect(uri.hasPrefix("otpauth://totp/Tessera%20Wallet%20Provider%3Aa@b.example?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
        #expect(uri.contains("&period=30"))
    }
}
