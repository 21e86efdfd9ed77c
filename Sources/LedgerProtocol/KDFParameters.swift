import Argon2
import Foundation
import TesseraJOSE
import TesseraCore

/// The password KDF as it travels: `{alg: "argon2id", v: 19, salt, m, t, p, len}` (RFC 9106; salt base64url). The
/// salt is per user and stored by the ledger, so the device derives the same hash at every login.
public struct KDFParameters: Sendable, Equatable {
    public let salt: Data
    public let memoryKiB: UInt32
    public let iterations: UInt32
    public let parallelism: UInt32
    public let length: UInt32

    /// The default: m = 64 MiB, t = 3, p = 4, 32-byte hash.
    public init(salt: Data, memoryKiB: UInt32 = 65_536, iterations: UInt32 = 3, parallelism: UInt32 = 4, length: UInt32 = 32) {
        self.salt = salt
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
        self.length = length
    }

    public var argon2: Argon2Parameters {
        Argon2Parameters(memoryKiB: memoryKiB, iterations: iterations, parallelism: parallelism, tagLength: length)
    }

    public var json: JSONObject {
        [
            "alg": "argon2id", "v": .integer(Int64(Argon2Parameters.version13)), "salt": .string(Base64URL.encode(salt)),
            "m": .integer(Int64(memoryKiB)), "t": .integer(Int64(iterations)), "p": .integer(Int64(parallelism)),
            "len": .integer(Int64(length)),
        ]
    }

    /// Refuses parameters a device should not run: another algorithm or version, a short salt, or costs outside
    /// [8·p KiB … 4 GiB], t in 1…16, p in 1…16, len in 16…64 (a hostile ledger could otherwise exhaust the device).
    public init(json: JSONObject?) throws(LedgerProtocolError) {
        guard let json, json["alg"]?.stringValue == "argon2id", json["v"]?.int64Value == Int64(Argon2Parameters.version13),
            let salt = Base64URL.bytes(json["salt"]?.stringValue), (16...64).contains(salt.count),
            let m = json["m"]?.int64Value, let t = json["t"]?.int64Value, let p = json["p"]?.int64Value,
            let len = json["len"]?.int64Value, (1...16).contains(p), (8 * p...4_194_304).contains(m), (1...16).contains(t),
            (16...64).contains(len)
        else { throw .malformed("kdf must be {alg: argon2id, v: 19, salt, m, t, p, len} within the accepted costs") }
        self.init(salt: salt, memoryKiB: UInt32(m), iterations: UInt32(t), parallelism: UInt32(p), length: UInt32(len))
    }

    /// `H = Argon2id(password, salt, params)`.
    public func hash(password: String) throws -> Data {
        Data(try Argon2.hash(password: Array(password.utf8), salt: Array(salt), parameters: argon2))
    }
}
