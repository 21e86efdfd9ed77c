import Crypto
import Foundation
import TesseraCore

/// An Ed25519 nkey: a public key with its type, and (for a full pair) the 32-byte seed it derives from.
///
/// Encodings (nkeys): a public key is base32(prefix ‖ key ‖ CRC16-LE), 56 characters; a seed is
/// base32(`S`-prefix with the type spread over two bytes ‖ seed ‖ CRC16-LE), 58 characters starting `SO`, `SA`, `SU`…
public struct NKeyPair: Sendable {
    public let type: NKeyType
    public let publicKey: Curve25519.Signing.PublicKey
    private let privateKey: Curve25519.Signing.PrivateKey?

    /// A new key pair whose seed comes from `random`.
    public init(type: NKeyType, random: some RandomSource) throws(NATSError) {
        let seed = random.bytes(32)
        try self.init(type: type, rawSeed: seed)
    }

    /// The pair derived from a raw 32-byte Ed25519 seed.
    public init(type: NKeyType, rawSeed: some DataProtocol) throws(NATSError) {
        guard rawSeed.count == 32, let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: Data(rawSeed)) else {
            throw .invalidKeyLength
        }
        self.type = type
        self.privateKey = key
        self.publicKey = key.publicKey
    }

    /// The pair from an encoded seed (`SU…`, `SA…`, `SO…`); `expected` restricts its type.
    public init(seed: some StringProtocol, expected: NKeyType? = nil) throws(NATSError) {
        let raw = try NKeyCodec.decodeChecked(seed)
        guard raw.count == 34, raw[0] & 0xF8 == NKeyType.seedPrefix else { throw .invalidPrefix(expected: "seed") }
        let typeByte = (raw[0] & 0x07) << 5 | (raw[1] & 0xF8) >> 3
        guard let type = NKeyType(rawValue: typeByte), raw[1] & 0x07 == 0 else {
            throw .invalidPrefix(expected: "seed")
        }
        if let expected, expected != type { throw .invalidPrefix(expected: "\(expected) seed") }
        try self.init(type: type, rawSeed: raw[2...])
    }

    /// A public-only key (verification), from its encoded form (`U…`, `A…`, `O…`).
    public init(publicKey encoded: some StringProtocol, expected: NKeyType? = nil) throws(NATSError) {
        let raw = try NKeyCodec.decodeChecked(encoded)
        guard raw.count == 33, let type = NKeyType(rawValue: raw[0]) else {
            throw .invalidPrefix(expected: expected.map { "\($0) public key" } ?? "public key")
        }
        if let expected, expected != type { throw .invalidPrefix(expected: "\(expected) public key") }
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: Data(raw[1...])) else {
            throw .invalidKeyLength
        }
        self.type = type
        self.publicKey = key
        self.privateKey = nil
    }

    /// The encoded public key, e.g. `UAB…` for a user.
    public var publicKeyString: String {
        NKeyCodec.encode([type.rawValue] + Array(publicKey.rawRepresentation))
    }

    /// The encoded seed (a secret: never log it); nil for a public-only key.
    public var seedString: String? {
        guard let privateKey else { return nil }
        let b1 = NKeyType.seedPrefix | type.rawValue >> 5
        let b2 = (type.rawValue & 31) << 3
        return NKeyCodec.encode([b1, b2] + Array(privateKey.rawRepresentation))
    }

    public var canSign: Bool { privateKey != nil }

    /// An Ed25519 signature (64 bytes) of `message`.
    public func sign(_ message: some DataProtocol) throws(NATSError) -> Data {
        guard let privateKey, let signature = try? privateKey.signature(for: Data(message)) else {
            throw .invalidPrefix(expected: "a seed (this key pair has no private key)")
        }
        return signature
    }

    public func verify(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        publicKey.isValidSignature(Data(signature), for: Data(message))
    }
}

/// The checksummed base32 framing shared by public keys and seeds.
enum NKeyCodec {
    static func encode(_ body: [UInt8]) -> String {
        let crc = CRC16.checksum(body)
        return Base32.encode(body + [UInt8(crc & 0xFF), UInt8(crc >> 8)])
    }

    /// The body (prefix and key) after checking the CRC16.
    static func decodeChecked(_ text: some StringProtocol) throws(NATSError) -> [UInt8] {
        // Trailing newlines are common in seed files; anything else must be exact.
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= 128 else { throw .invalidEncoding }
        guard let raw = Base32.decode(trimmed) else { throw .invalidEncoding }
        guard raw.count >= 4 else { throw .invalidEncoding }
        let body = Array(raw[..<(raw.count - 2)])
        let crc = UInt16(raw[raw.count - 2]) | UInt16(raw[raw.count - 1]) << 8
        guard CRC16.checksum(body) == crc else { throw .invalidChecksum }
        return body
    }
}
