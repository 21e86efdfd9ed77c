import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import VaultProtocol

/// Fixed inputs shared by the VaultProtocol tests. The keys and the derived values in `Vector` were computed with
/// Python `cryptography` 48 (X25519, HKDF-SHA256, ChaCha20-Poly1305), an implementation independent of swift-crypto.
enum Fixture {
    static let guid = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
    static let peerGUID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

    static func appKey() throws -> Curve25519.KeyAgreement.PrivateKey {
        try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(1...32))
    }

    static func vaultKey() throws -> Curve25519.KeyAgreement.PrivateKey {
        try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(0x41...0x60))
    }

    static func identityKey(_ seed: UInt8 = 7) throws -> Curve25519.Signing.PrivateKey {
        try Curve25519.Signing.PrivateKey(rawRepresentation: Data(repeating: seed, count: 32))
    }

    static func sessionKey() throws -> SymmetricKey {
        try VaultSessionKey.derive(privateKey: appKey(), peerPublicKey: vaultKey().publicKey.rawRepresentation, sessionID: "sess-1")
    }

    static let appPublicKeyB64 = Base64URL.encode(hex("07a37cbc142093c8b755dc1b10e86cb426374ad16aa853ed0bdfc0b2b86d1c7c"))
}

enum Vector {
    static let appPublicKey = hex("07a37cbc142093c8b755dc1b10e86cb426374ad16aa853ed0bdfc0b2b86d1c7c")
    static let vaultPublicKey = hex("64b101b1d0be5a8704bd078f9895001fc03e8e9f9522f188dd128d9846d48466")
    /// HKDF-SHA256(X25519(app, vault), "VettID-HKDF-Salt-v1", "app-vault-session-v1" ‖ "sess-1").
    static let sessionKey = hex("9f0a279e7b6b422c65a3c296f13d3522b0112c19803e0a49d7ec652bbc02623e")
    /// … "vault-connection-v1" ‖ "conn-1".
    static let connectionKey = hex("b33f48d399ac741db907b7f150792b34efa5a84a6d03b4d06e5dffdafb1e93de")
    /// ChaCha20-Poly1305 under `sessionKey`, nonce a0…ab, AAD of (app-to-vault, sess-1, 7, `subject`).
    static let nonce = Data(0xa0...0xab)
    static let plaintext = Data(#"{"id":"e1","type":"profile.get","payload":{},"timestamp":1700000000}"#.utf8)
    static let subject = "OwnerSpace.0f1e2d3c4b5a69788796a5b4c3d2e1f0.forVault.profile.get"
    static let ciphertext = hex(
        "0d6a93e6468dcab38165e9047da274e48a11fe6b9d133e1ef17abf804ec942e23ba9e4d6d0408be4ded7ab05cb5b846b451adbbe15972804974d9bd3ca7489106d9705a2b346371c2a34d7153de45cff6fec538a"
    )
}

func hex(_ text: String) -> Data {
    var out = Data()
    var index = text.startIndex
    while index < text.endIndex {
        let next = text.index(index, offsetBy: 2)
        out.append(UInt8(text[index..<next], radix: 16) ?? 0)
        index = next
    }
    return out
}

/// Delivers the given bytes, then zeros (or fewer bytes than asked, to test a failing source).
struct FixedRandom: RandomSource {
    let data: Data
    var short = false
    func bytes(_ count: Int) -> Data { short ? data.prefix(count - 1) : data.prefix(count) + Data(repeating: 0, count: max(0, count - data.count)) }
}

func object(_ text: String) throws -> JSONObject {
    guard let object = try JSONValue.parse(text).objectValue else { throw VaultProtocolError.malformed("test JSON is not an object") }
    return object
}

func string(_ count: Int, _ character: Character = "a") -> String { String(repeating: character, count: count) }
