import Crypto
import Foundation
import TesseraJOSE
import Testing
import VaultProtocol

@Suite struct VaultSessionKeyTests {
    private func bytes(_ key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }

    @Test func matchesPythonCryptography() throws {
        let app = try Fixture.appKey(), vault = try Fixture.vaultKey()
        #expect(app.publicKey.rawRepresentation == Vector.appPublicKey)
        #expect(vault.publicKey.rawRepresentation == Vector.vaultPublicKey)
        let key = try VaultSessionKey.derive(privateKey: app, peerPublicKey: Vector.vaultPublicKey, sessionID: "sess-1")
        #expect(bytes(key) == Vector.sessionKey)
        let connection = try VaultSessionKey.deriveConnection(privateKey: app, peerPublicKey: Vector.vaultPublicKey, connectionID: "conn-1")
        #expect(bytes(connection) == Vector.connectionKey)
    }

    /// The construction of the design, recomputed from swift-crypto's X25519 and HKDF primitives.
    @Test func matchesIndependentComputation() throws {
        let app = Curve25519.KeyAgreement.PrivateKey(), vault = Curve25519.KeyAgreement.PrivateKey()
        let shared = try app.sharedSecretFromKeyAgreement(with: vault.publicKey).withUnsafeBytes { Data($0) }
        let expected = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: shared), salt: Data("VettID-HKDF-Salt-v1".utf8),
            info: Data("app-vault-session-v1".utf8) + Data("0c5e-id_7".utf8), outputByteCount: 32)
        let derived = try VaultSessionKey.derive(privateKey: app, peerPublicKey: vault.publicKey.rawRepresentation, sessionID: "0c5e-id_7")
        #expect(bytes(derived) == bytes(expected))
        let expectedConnection = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: shared), salt: Data("VettID-HKDF-Salt-v1".utf8),
            info: Data("vault-connection-v1conn-9".utf8), outputByteCount: 32)
        let connection = try VaultSessionKey.deriveConnection(privateKey: app, peerPublicKey: vault.publicKey.rawRepresentation, connectionID: "conn-9")
        #expect(bytes(connection) == bytes(expectedConnection))
    }

    @Test func bothSidesDeriveTheSameKey() throws {
        let app = Curve25519.KeyAgreement.PrivateKey(), vault = Curve25519.KeyAgreement.PrivateKey()
        let appSide = try VaultSessionKey.derive(privateKey: app, peerPublicKey: vault.publicKey.rawRepresentation, sessionID: "s1")
        let vaultSide = try VaultSessionKey.derive(privateKey: vault, peerPublicKey: app.publicKey.rawRepresentation, sessionID: "s1")
        #expect(bytes(appSide) == bytes(vaultSide))
        // Another session id, or the connection purpose, gives another key.
        let other = try VaultSessionKey.derive(privateKey: vault, peerPublicKey: app.publicKey.rawRepresentation, sessionID: "s2")
        let connection = try VaultSessionKey.deriveConnection(privateKey: vault, peerPublicKey: app.publicKey.rawRepresentation, connectionID: "s1")
        #expect(bytes(other) != bytes(appSide))
        #expect(bytes(connection) != bytes(appSide))
    }

    @Test func refusesBadPeerKeysAndIDs() throws {
        let app = try Fixture.appKey()
        // Wrong length, non-canonical (top bit set, or ≥ p), and small-order points (all-zero shared secret).
        var topBit = Vector.vaultPublicKey
        topBit[31] |= 0x80
        let p = Data([0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f])
        for bad in [Data(), Data(count: 31), Vector.vaultPublicKey + Data([0]), topBit, p, Data(count: 32), Data([1] + [UInt8](repeating: 0, count: 31))] {
            #expect(throws: VaultProtocolError.self) { try VaultSessionKey.derive(privateKey: app, peerPublicKey: bad, sessionID: "s") }
        }
        for id in ["", "a.b", "a|b", "a b", string(129)] {
            #expect(throws: VaultProtocolError.self) { try VaultSessionKey.derive(privateKey: app, peerPublicKey: Vector.vaultPublicKey, sessionID: id) }
        }
    }
}
