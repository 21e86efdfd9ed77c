import Foundation
import TesseraCore

extension Argon2 {
    /// Hashes `password` and returns the PHC string `$argon2id$v=19$m=...,t=...,p=...$<salt>$<hash>`.
    /// The caller supplies a random `salt` (RFC 9106 §3.1 recommends 16 bytes); an optional `secret` (K, a
    /// pepper) is not stored in the string and must be given again to `verify`.
    public static func encode(
        password: some DataProtocol, salt: some DataProtocol, secret: some DataProtocol = [UInt8](),
        parameters: Argon2Parameters
    ) throws(Argon2Error) -> String {
        let tag = try hash(
            password: password, salt: salt, secret: secret, associatedData: [UInt8](), parameters: parameters)
        return try Argon2EncodedHash(parameters: parameters, salt: Array(salt), hash: tag).string
    }

    /// `encode` with the UTF-8 bytes of `password` (their copy is wiped after use).
    public static func encode(
        password: String, salt: some DataProtocol, secret: some DataProtocol = [UInt8](),
        parameters: Argon2Parameters
    ) throws(Argon2Error) -> String {
        var bytes = Array(password.utf8)
        defer { secureZero(&bytes) }
        return try encode(password: bytes, salt: salt, secret: secret, parameters: parameters)
    }

    /// Parses the PHC string `encoded` within `limits`, recomputes the tag of `password` with its parameters
    /// and salt, and compares the two in constant time. Throws for a malformed or out-of-limits string;
    /// returns false for a wrong password.
    public static func verify(
        password: some DataProtocol, encoded: String, secret: some DataProtocol = [UInt8](),
        limits: Argon2Limits = .default
    ) throws(Argon2Error) -> Bool {
        let stored = try Argon2EncodedHash(parsing: encoded, limits: limits)
        var computed = try hash(
            password: password, salt: stored.salt, secret: secret, associatedData: [UInt8](),
            parameters: stored.parameters)
        let matches = computed.withUnsafeBytes { left in stored.hash.withUnsafeBytes { right in ConstantTime.equal(left, right) } }
        secureZero(&computed)
        return matches
    }

    /// `verify` with the UTF-8 bytes of `password` (their copy is wiped after use).
    public static func verify(
        password: String, encoded: String, secret: some DataProtocol = [UInt8](), limits: Argon2Limits = .default
    ) throws(Argon2Error) -> Bool {
        var bytes = Array(password.utf8)
        defer { secureZero(&bytes) }
        return try verify(password: bytes, encoded: encoded, secret: secret, limits: limits)
    }
}
