import Crypto
import Foundation
import TesseraCore
import TesseraJOSE

/// `{version: 1, session_id, seq, nonce, ciphertext}` (vault-design.md, "Wire formats"): ChaCha20-Poly1305
/// (RFC 8439) with a random 12-byte nonce; the ciphertext ends with the 16-byte tag. The AAD binds the direction,
/// session, sequence number and NATS subject, so an envelope moved to another subject, session or direction, or
/// given another seq, does not open.
public struct VaultEnvelope: Sendable, Equatable {
    public let version: Int
    /// For vault ↔ vault envelopes, the connection_id.
    public let sessionID: String
    /// 1…2⁵³, one per message and direction; the receiver's `ReplayWindow` refuses repeats.
    public let seq: UInt64
    public let nonce: Data
    public let ciphertext: Data

    public static let maxBytes = 256 * 1024
    public static let currentVersion = 1
    public static let maxSeq: UInt64 = 1 << 53

    public init(sessionID: String, seq: UInt64, nonce: Data, ciphertext: Data) throws(VaultProtocolError) {
        guard VaultToken.isToken(sessionID) else { throw .malformed("envelope.session_id must be one token") }
        guard seq >= 1, seq <= Self.maxSeq else { throw .malformed("envelope.seq must lie in 1…2^53") }
        guard nonce.count == 12 else { throw .malformed("envelope.nonce must be 12 bytes") }
        guard ciphertext.count >= 16 else { throw .malformed("envelope.ciphertext is shorter than its tag") }
        version = Self.currentVersion
        self.sessionID = sessionID
        self.seq = seq
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    /// Strict: exactly the five members, `version` 1.
    public init(json: Data) throws(VaultProtocolError) {
        try self.init(object: VaultFields.parse(json, limit: Self.maxBytes, "envelope"))
    }

    public init(object: JSONObject) throws(VaultProtocolError) {
        let fields = try VaultFields(object, "envelope", allowed: ["version", "session_id", "seq", "nonce", "ciphertext"])
        let version = try fields.integer("version", in: 0...VaultLimits.maxInteger)
        guard version == Int64(Self.currentVersion) else { throw .unsupportedVersion(Int(clamping: version)) }
        try self.init(
            sessionID: fields.token("session_id"),
            seq: UInt64(try fields.integer("seq", in: 1...Int64(Self.maxSeq))),
            nonce: fields.bytes("nonce", count: 12),
            ciphertext: fields.bytes("ciphertext", minimum: 16, maximum: Self.maxBytes)
        )
    }

    public var json: JSONObject {
        [
            "version": .integer(Int64(version)), "session_id": .string(sessionID), "seq": .integer(Int64(seq)),
            "nonce": .string(Base64URL.encode(nonce)), "ciphertext": .string(Base64URL.encode(ciphertext)),
        ]
    }

    public func encoded() -> Data { json.serialized() }

    /// `"app-vault-v1|" + direction + "|" + session_id + "|" + seq + "|" + subject`. Neither session_id (a token)
    /// nor seq (digits) can hold `|`, so every AAD has one reading.
    public static func aad(direction: VaultDirection, sessionID: String, seq: UInt64, subject: String) -> Data {
        Data("app-vault-v1|\(direction.rawValue)|\(sessionID)|\(seq)|\(subject)".utf8)
    }

    /// Encrypts `plaintext` for `subject`. Throws `encryptionFailed` for a key that is not 256 bits or a random
    /// source that does not deliver 12 bytes, `malformed` for a session id that is not a token or seq outside 1…2⁵³.
    public static func seal(
        _ plaintext: Data, key: SymmetricKey, direction: VaultDirection, sessionID: String, seq: UInt64, subject: String,
        random: some RandomSource
    ) throws(VaultProtocolError) -> VaultEnvelope {
        guard VaultToken.isToken(sessionID) else { throw .malformed("envelope.session_id must be one token") }
        guard seq >= 1, seq <= maxSeq else { throw .malformed("envelope.seq must lie in 1…2^53") }
        let aad = aad(direction: direction, sessionID: sessionID, seq: seq, subject: subject)
        let (nonce, ciphertext) = try VaultAEAD.seal(plaintext, key: key, aad: aad, random: random)
        return try VaultEnvelope(sessionID: sessionID, seq: seq, nonce: nonce, ciphertext: ciphertext)
    }

    /// Decrypts with the AAD rebuilt from this envelope and the subject it arrived on. Every failure is
    /// `decryptionFailed` (no oracle).
    public func open(key: SymmetricKey, direction: VaultDirection, subject: String) throws(VaultProtocolError) -> Data {
        try VaultAEAD.open(nonce: nonce, ciphertext: ciphertext, key: key, aad: Self.aad(direction: direction, sessionID: sessionID, seq: seq, subject: subject))
    }
}

/// ChaCha20-Poly1305 as the envelope and the sealed credentials use it: random 12-byte nonce, tag appended.
enum VaultAEAD {
    static func seal(_ plaintext: Data, key: SymmetricKey, aad: Data, random: some RandomSource) throws(VaultProtocolError) -> (nonce: Data, ciphertext: Data) {
        guard key.bitCount == 256 else { throw .encryptionFailed }
        let nonceBytes = random.bytes(12)
        guard nonceBytes.count == 12, let nonce = try? ChaChaPoly.Nonce(data: nonceBytes),
            let box = try? ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        else { throw .encryptionFailed }
        // Fresh buffers: `box.ciphertext` is a slice of the combined box (its indices do not start at 0).
        var ciphertext = Data(capacity: plaintext.count + 16)
        ciphertext.append(contentsOf: box.ciphertext)
        ciphertext.append(contentsOf: box.tag)
        return (Data(Array(nonceBytes)), ciphertext)
    }

    static func open(nonce: Data, ciphertext: Data, key: SymmetricKey, aad: Data) throws(VaultProtocolError) -> Data {
        guard key.bitCount == 256, ciphertext.count >= 16, let nonce = try? ChaChaPoly.Nonce(data: nonce),
            let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: ciphertext.dropLast(16), tag: ciphertext.suffix(16)),
            let plaintext = try? ChaChaPoly.open(box, using: key, authenticating: aad)
        else { throw .decryptionFailed }
        return plaintext
    }
}
