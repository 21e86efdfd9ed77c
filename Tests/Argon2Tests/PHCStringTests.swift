import Foundation
import Testing

@testable import Argon2

@Suite("PHC strings")
struct PHCStringTests {
    static let small = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 2)
    static let salt = Array("0123456789abcdef".utf8)
    /// A valid string (small parameters) that the malformed cases below are derived from.
    static let valid = "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4"

    @Test("encode then verify; a changed password or secret is refused")
    func roundTrip() throws {
        let encoded = try Argon2.encode(password: "correct horse", salt: Self.salt, parameters: Self.small)
        #expect(encoded.hasPrefix("$argon2id$v=19$m=64,t=1,p=2$MDEyMzQ1Njc4OWFiY2RlZg$"))
        #expect(try Argon2.verify(password: "correct horse", encoded: encoded))
        #expect(try !Argon2.verify(password: "correct horsf", encoded: encoded))
        #expect(try !Argon2.verify(password: "", encoded: encoded))

        let pepper = Array("server-side pepper".utf8)
        let peppered = try Argon2.encode(password: "pw", salt: Self.salt, secret: pepper, parameters: Self.small)
        #expect(try Argon2.verify(password: "pw", encoded: peppered, secret: pepper))
        #expect(try !Argon2.verify(password: "pw", encoded: peppered))
    }

    @Test("the string's hash length sets T")
    func tagLengthFromString() throws {
        var parameters = Self.small
        parameters.tagLength = 48
        let encoded = try Argon2.encode(password: "pw", salt: Self.salt, parameters: parameters)
        let parsed = try Argon2EncodedHash(parsing: encoded)
        #expect(parsed.parameters == parameters)
        #expect(parsed.hash.count == 48)
        #expect(try Argon2.verify(password: "pw", encoded: encoded))
    }

    @Test("the valid base string verifies")
    func validBase() throws {
        #expect(try Argon2.verify(password: "password", encoded: Self.valid))
    }

    typealias Defect = Argon2Error.EncodedHashDefect

    static let malformed: [(String, Argon2Error)] = [
        ("", .malformedEncodedHash(.fieldCount)),
        ("argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.fieldCount)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65$extra", .malformedEncodedHash(.fieldCount)),
        ("$argon2x$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.unknownVariant)),
        ("$ARGON2ID$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.unknownVariant)),
        ("$argon2id$v=1a$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.versionField)),
        ("$argon2id$V=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.versionField)),
        ("$argon2id$v=$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.versionField)),
        ("$argon2id$v=20$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .unsupportedVersion(20)),
        ("$argon2id$v=19$t=2,m=256,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=256,t=2$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=256,t=2,p=1,keyid=AAAA$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=0256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=+256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=256,t=-2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=256, t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=4294967296,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.parameterField)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ=$nf65EOgLrQMR", .malformedEncodedHash(.saltEncoding)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHR$nf65EOgLrQMR", .malformedEncodedHash(.saltEncoding)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbH$nf65EOgLrQMR", .malformedEncodedHash(.saltEncoding)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29t-XNhbHQ$nf65EOgLrQMR", .malformedEncodedHash(.saltEncoding)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQM_", .malformedEncodedHash(.hashEncoding)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR€", .malformedEncodedHash(.hashEncoding)),
        // Well formed, but outside RFC 9106 §3.1.
        ("$argon2id$v=19$m=256,t=0,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .iterationsOutOfRange(0)),
        ("$argon2id$v=19$m=256,t=2,p=0$c29tZXNhbHQ$nf65EOgLrQMR", .parallelismOutOfRange(0)),
        ("$argon2id$v=19$m=7,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR", .memoryTooSmall(memoryKiB: 7, minimumKiB: 8)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65", .tagLengthOutOfRange(3)),
        ("$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbA$nf65EOgLrQMR", .saltTooShort(length: 7)),
        ("$argon2id$v=19$m=256,t=2,p=1$$nf65EOgLrQMR", .saltTooShort(length: 0)),
    ]

    @Test("malformed strings are refused with the rule broken", arguments: malformed)
    func malformedStrings(encoded: String, expected: Argon2Error) {
        #expect(throws: expected) { try Argon2EncodedHash(parsing: encoded) }
        #expect(throws: expected) { try Argon2.verify(password: "password", encoded: encoded) }
    }

    static let overLimits: [(String, Argon2Error)] = [
        // 4 TiB, t = 2^32 - 1, p = 2^24 - 1: refused from the numbers alone, before any allocation.
        (
            "$argon2id$v=19$m=4294967295,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR",
            .memoryLimitExceeded(memoryKiB: 4_294_967_295, limitKiB: 262_144)
        ),
        (
            "$argon2id$v=19$m=256,t=4294967295,p=1$c29tZXNhbHQ$nf65EOgLrQMR",
            .iterationsLimitExceeded(iterations: 4_294_967_295, limit: 16)
        ),
        (
            "$argon2id$v=19$m=262144,t=2,p=16777215$c29tZXNhbHQ$nf65EOgLrQMR",
            .parallelismLimitExceeded(parallelism: 16_777_215, limit: 16)
        ),
        (
            "$argon2id$v=19$m=256,t=2,p=1$\(PHCBase64.encode([UInt8](repeating: 1, count: 65)))$nf65EOgLrQMR",
            .saltLengthLimitExceeded(length: 65, limit: 64)
        ),
        (
            "$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$\(PHCBase64.encode([UInt8](repeating: 1, count: 129)))",
            .tagLengthLimitExceeded(length: 129, limit: 128)
        ),
    ]

    @Test("parameters beyond the default limits are refused", arguments: overLimits)
    func overDefaultLimits(encoded: String, expected: Argon2Error) {
        #expect(throws: expected) { try Argon2.verify(password: "password", encoded: encoded) }
    }

    @Test("limits are configurable")
    func customLimits() throws {
        let tight = Argon2Limits(
            maxMemoryKiB: 128, maxIterations: 1, maxParallelism: 1, maxSaltLength: 8, maxTagLength: 16)
        #expect(throws: Argon2Error.memoryLimitExceeded(memoryKiB: 256, limitKiB: 128)) {
            try Argon2.verify(password: "password", encoded: Self.valid, limits: tight)
        }
        let roomy = Argon2Limits(
            maxMemoryKiB: 256, maxIterations: 2, maxParallelism: 1, maxSaltLength: 8, maxTagLength: 32)
        #expect(try Argon2.verify(password: "password", encoded: Self.valid, limits: roomy))
        var noLongTags = roomy
        noLongTags.maxTagLength = 31
        #expect(throws: Argon2Error.tagLengthLimitExceeded(length: 32, limit: 31)) {
            try Argon2.verify(password: "password", encoded: Self.valid, limits: noLongTags)
        }
    }

    @Test("an overlong string is refused before it is split")
    func overlong() {
        let encoded = Self.valid + String(repeating: "A", count: 400)
        let limit = 64 + PHCBase64.encodedLength(64) + PHCBase64.encodedLength(128)
        #expect(throws: Argon2Error.malformedEncodedHash(.tooLong(length: encoded.utf8.count, limit: limit))) {
            try Argon2.verify(password: "password", encoded: encoded)
        }
    }

    @Test("Argon2EncodedHash(parameters:salt:hash:) checks its parts")
    func memberwiseChecks() {
        #expect(throws: Argon2Error.tagLengthOutOfRange(16)) {
            try Argon2EncodedHash(parameters: Self.small, salt: Self.salt, hash: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: Argon2Error.saltTooShort(length: 4)) {
            try Argon2EncodedHash(parameters: Self.small, salt: [1, 2, 3, 4], hash: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("unpadded base64 agrees with Foundation's (padding removed) and decodes back")
    func base64() throws {
        var random = SeededGenerator(seed: 64)
        for length in 0..<40 {
            let data = random.bytes(count: length)
            let encoded = PHCBase64.encode(data)
            let foundation = Data(data).base64EncodedString().replacingOccurrences(of: "=", with: "")
            #expect(encoded == foundation)
            #expect(encoded.utf8.count == PHCBase64.encodedLength(length))
            #expect(PHCBase64.decode(Array(encoded.utf8)) == data)
        }
        // Non-canonical: unused low bits set ("QR" and "QQ" would both be 0x41 without the check), a lone
        // trailing character, padding, the URL-safe alphabet.
        #expect(PHCBase64.decode(Array("QQ".utf8)) == [0x41])
        #expect(PHCBase64.decode(Array("QR".utf8)) == nil)
        #expect(PHCBase64.decode(Array("QUFBQ".utf8)) == nil)
        #expect(PHCBase64.decode(Array("QQ==".utf8)) == nil)
        #expect(PHCBase64.decode(Array("-_".utf8)) == nil)
    }
}
