import Foundation
import Testing
import TesseraCore

@testable import NATSClient

@Suite("nkeys")
struct NKeysTests {
    /// RFC 4648 §10 vectors, with the padding removed (nkeys never pads).
    @Test("base32 RFC 4648 vectors", arguments: [
        ("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"), ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI"),
    ])
    func base32Vectors(_ plain: String, _ encoded: String) throws {
        #expect(Base32.encode(Array(plain.utf8)) == encoded)
        #expect(Base32.decode(encoded) == Array(plain.utf8))
        #expect(Base32.encode(Array(plain.utf8), lowercase: true) == encoded.lowercased())
    }

    @Test("base32 rejects foreign characters, impossible lengths and non-canonical tails")
    func base32Rejects() {
        for bad in ["MY=", "my", "M", "MZX", "MZXW6Y", "MZ", "A1"] {
            #expect(Base32.decode(bad) == nil, "\(bad)")
        }
    }

    @Test("CRC-16/XMODEM check value")
    func crc16() {
        #expect(CRC16.checksum(Array("123456789".utf8)) == 0x31C3)
        #expect(CRC16.checksum([]) == 0)
    }

    @Test("a seed from the nkeys test suite decodes as a user seed and round-trips")
    func knownSeed() throws {
        let seed = "SUAMAR5BIQ2AZCPYRTLLK7UGWMGSG2GWD2VPIXBNO7ZIB6TZAU4QAEJS2Q"
        let pair = try NKeyPair(seed: seed)
        #expect(pair.type == .user)
        #expect(pair.seedString == seed)
        #expect(pair.publicKeyString.hasPrefix("U"))
        #expect(pair.publicKeyString.count == 56)
        let publicOnly = try NKeyPair(publicKey: pair.publicKeyString, expected: .user)
        #expect(publicOnly.publicKeyString == pair.publicKeyString)
        #expect(publicOnly.seedString == nil)
    }

    @Test("every key type: prefix letters, seed round trip, sign and verify", arguments: NKeyType.allCases)
    func keyTypes(_ type: NKeyType) throws {
        let pair = try NKeyPair(type: type, random: SeededRandomSource(seed: UInt64(type.rawValue) + 1))
        let letter: Character = ["account": "A", "cluster": "C", "server": "N", "operator": "O", "user": "U", "curve": "X"][type.description] ?? "?"
        #expect(pair.publicKeyString.first == letter)
        let seed = try #require(pair.seedString)
        #expect(seed.hasPrefix("S" + String(letter)))
        #expect(seed.count == 58)
        let again = try NKeyPair(seed: seed, expected: type)
        #expect(again.publicKeyString == pair.publicKeyString)
        let signature = try pair.sign(Data("nonce".utf8))
        #expect(signature.count == 64)
        #expect(again.verify(signature, for: Data("nonce".utf8)))
        #expect(!again.verify(signature, for: Data("nonse".utf8)))
    }

    @Test("seeds are reproducible from an injected random source")
    func deterministic() throws {
        let a = try NKeyPair(type: .account, random: SeededRandomSource(seed: 42))
        let b = try NKeyPair(type: .account, random: SeededRandomSource(seed: 42))
        #expect(a.seedString == b.seedString)
    }

    @Test("a corrupted character fails the checksum; a wrong kind fails the prefix check")
    func failures() throws {
        let pair = try NKeyPair(type: .user, random: SystemRandomSource())
        var chars = Array(pair.publicKeyString)
        chars[10] = chars[10] == "A" ? "B" : "A"
        #expect(throws: NATSError.invalidChecksum) { try NKeyPair(publicKey: String(chars)) }
        #expect(throws: NATSError.invalidPrefix(expected: "account public key")) {
            try NKeyPair(publicKey: pair.publicKeyString, expected: .account)
        }
        let seed = try #require(pair.seedString)
        #expect(throws: NATSError.invalidPrefix(expected: "operator seed")) { try NKeyPair(seed: seed, expected: .operator) }
        // A public key is not a seed, and vice versa.
        #expect(throws: NATSError.invalidPrefix(expected: "seed")) { try NKeyPair(seed: pair.publicKeyString) }
        #expect(throws: (any Error).self) { try NKeyPair(publicKey: seed) }
        #expect(throws: NATSError.invalidEncoding) { try NKeyPair(seed: "not base32!") }
        // A public-only key cannot sign.
        let publicOnly = try NKeyPair(publicKey: pair.publicKeyString)
        #expect(throws: (any Error).self) { try publicOnly.sign(Data()) }
    }
}
