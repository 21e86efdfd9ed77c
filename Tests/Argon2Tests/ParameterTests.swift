import Foundation
import Testing

@testable import Argon2

/// RFC 9106 §3.1 ranges and the other refusals of `Argon2.hash`: typed errors, never a crash or a hash.
@Suite("parameters and inputs")
struct ParameterTests {
    static let password = Array("password".utf8)
    static let salt = Array("somesalt".utf8)

    static let outOfRange: [(Argon2Parameters, Argon2Error)] = [
        (Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 0), .parallelismOutOfRange(0)),
        (Argon2Parameters(memoryKiB: UInt32.max, iterations: 1, parallelism: 1 << 24), .parallelismOutOfRange(1 << 24)),
        (
            Argon2Parameters(memoryKiB: 31, iterations: 1, parallelism: 4),
            .memoryTooSmall(memoryKiB: 31, minimumKiB: 32)
        ),
        (Argon2Parameters(memoryKiB: 0, iterations: 1, parallelism: 1), .memoryTooSmall(memoryKiB: 0, minimumKiB: 8)),
        (Argon2Parameters(memoryKiB: 64, iterations: 0, parallelism: 1), .iterationsOutOfRange(0)),
        (Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1, tagLength: 3), .tagLengthOutOfRange(3)),
        (Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1, tagLength: 0), .tagLengthOutOfRange(0)),
        (Argon2Parameters(version: 0x14, memoryKiB: 64, iterations: 1, parallelism: 1), .unsupportedVersion(0x14)),
        (Argon2Parameters(version: 0, memoryKiB: 64, iterations: 1, parallelism: 1), .unsupportedVersion(0)),
    ]

    @Test("parameters outside RFC 9106 §3.1", arguments: outOfRange)
    func outOfRangeParameters(parameters: Argon2Parameters, expected: Argon2Error) {
        #expect(throws: expected) { try Argon2.hash(password: Self.password, salt: Self.salt, parameters: parameters) }
        #expect(throws: expected) { try Argon2.encode(password: "pw", salt: Self.salt, parameters: parameters) }
    }

    @Test("the smallest valid parameters hash")
    func boundaries() throws {
        let minimal = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1, tagLength: 4)
        #expect(try Argon2.hash(password: [UInt8](), salt: Self.salt, parameters: minimal).count == 4)
        let fourLanes = Argon2Parameters(variant: .argon2i, memoryKiB: 32, iterations: 1, parallelism: 4)
        #expect(try Argon2.hash(password: Self.password, salt: Self.salt, parameters: fourLanes).count == 32)
    }

    @Test("a salt under 8 bytes is refused")
    func shortSalt() {
        let parameters = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
        #expect(throws: Argon2Error.saltTooShort(length: 7)) {
            try Argon2.hash(password: Self.password, salt: Array("saltsal".utf8), parameters: parameters)
        }
        #expect(throws: Argon2Error.saltTooShort(length: 0)) {
            try Argon2.hash(password: Self.password, salt: Data(), parameters: parameters)
        }
    }

    @Test("memory beyond this machine is refused before allocation")
    func memoryBeyondMachine() {
        // 4 TiB: larger than any machine this runs on.
        let huge = Argon2Parameters(memoryKiB: UInt32.max, iterations: 1, parallelism: 1)
        #expect(
            throws: Argon2Error.memoryLimitExceeded(
                memoryKiB: UInt32.max, limitKiB: ProcessInfo.processInfo.physicalMemory / 1024)
        ) {
            try Argon2.hash(password: Self.password, salt: Self.salt, parameters: huge)
        }
    }

    @Test("inputs longer than 2^32 - 1 bytes are refused", arguments: Argon2Error.Argon2Input.allCases)
    func inputTooLong(which: Argon2Error.Argon2Input) {
        let parameters = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)
        let long = OversizedBytes()
        #expect(throws: Argon2Error.inputTooLong(which)) {
            switch which {
            case .password: _ = try Argon2.hash(password: long, salt: Self.salt, parameters: parameters)
            case .salt: _ = try Argon2.hash(password: Self.password, salt: long, parameters: parameters)
            case .secret:
                _ = try Argon2.hash(password: Self.password, salt: Self.salt, secret: long, parameters: parameters)
            case .associatedData:
                _ = try Argon2.hash(
                    password: Self.password, salt: Self.salt, associatedData: long, parameters: parameters)
            }
        }
    }

    @Test("DataProtocol inputs made of several regions hash like one array")
    func multipleRegions() throws {
        let parameters = Argon2Parameters(memoryKiB: 32, iterations: 1, parallelism: 1)
        var split = DispatchData.empty
        for piece in [Array("pass".utf8), Array("word".utf8)] {
            piece.withUnsafeBytes { split.append($0) }
        }
        #expect(split.regions.count == 2)
        #expect(
            try Argon2.hash(password: split, salt: Self.salt, parameters: parameters)
                == (try Argon2.hash(password: Self.password, salt: Self.salt, parameters: parameters)))
    }

    @Test("RFC 9106 §4 recommended parameters")
    func recommended() {
        let low = Argon2Parameters.rfc9106LowMemory
        #expect(low.variant == .argon2id && low.version == 0x13)
        #expect(low.memoryKiB == 65536 && low.iterations == 3 && low.parallelism == 4 && low.tagLength == 32)
        let high = Argon2Parameters.rfc9106HighMemory
        #expect(high.memoryKiB == 2_097_152 && high.iterations == 1 && high.parallelism == 4)
    }
}

/// A byte collection that reports 2^32 bytes without storing them: `Argon2.hash` must refuse it from its
/// count alone. Its bytes (all zero) are never read when the check is in place.
struct OversizedBytes: DataProtocol {
    typealias Regions = [Data]
    var startIndex: Int { 0 }
    let endIndex: Int
    subscript(position: Int) -> UInt8 { 0 }
    var regions: [Data] { [] }

    /// The count comes from an unoptimised function: with a compile-time constant the release-mode optimiser
    /// tries to build the whole 2^32-element array at compile time and runs out of memory.
    init() { endIndex = oversizedCount() }
}

@_optimize(none)
private func oversizedCount() -> Int { Int(UInt32.max) + 1 }
