import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import VaultProtocol

@Suite struct VaultEnvelopeTests {
    private let subject = Vector.subject

    private func sealed() throws -> VaultEnvelope {
        try VaultEnvelope.seal(
            Vector.plaintext, key: SymmetricKey(data: Vector.sessionKey), direction: .appToVault, sessionID: "sess-1", seq: 7,
            subject: subject, random: FixedRandom(data: Vector.nonce))
    }

    @Test func sealMatchesPythonCryptography() throws {
        let envelope = try sealed()
        #expect(envelope.nonce == Vector.nonce)
        #expect(envelope.ciphertext == Vector.ciphertext)
        #expect(envelope.version == 1 && envelope.seq == 7 && envelope.sessionID == "sess-1")
        #expect(VaultEnvelope.aad(direction: .appToVault, sessionID: "sess-1", seq: 7, subject: subject)
            == Data("app-vault-v1|app-to-vault|sess-1|7|\(subject)".utf8))
        #expect(try envelope.open(key: Fixture.sessionKey(), direction: .appToVault, subject: subject) == Vector.plaintext)
    }

    @Test func jsonRoundTrip() throws {
        let envelope = try sealed()
        let text = String(decoding: envelope.encoded(), as: UTF8.self)
        #expect(text == #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"\#(Base64URL.encode(Vector.nonce))","ciphertext":"\#(Base64URL.encode(Vector.ciphertext))"}"#)
        #expect(try VaultEnvelope(json: envelope.encoded()) == envelope)
    }

    @Test func bothSidesOfASession() throws {
        let app = Curve25519.KeyAgreement.PrivateKey(), vault = Curve25519.KeyAgreement.PrivateKey()
        let appKey = try VaultSessionKey.derive(privateKey: app, peerPublicKey: vault.publicKey.rawRepresentation, sessionID: "s9")
        let vaultKey = try VaultSessionKey.derive(privateKey: vault, peerPublicKey: app.publicKey.rawRepresentation, sessionID: "s9")
        let reply = VaultEventResponse.success(eventID: "e1", result: ["ok": true], timestamp: 9)
        let replySubject = VaultSubjects.reply(Fixture.guid, type: "profile.get", id: "e1")
        let envelope = try VaultEnvelope.seal(
            reply.encoded(), key: vaultKey, direction: .vaultToApp, sessionID: "s9", seq: 1, subject: replySubject, random: SystemRandomSource())
        let received = try VaultEnvelope(json: envelope.encoded())
        #expect(try VaultPlaintext(json: received.open(key: appKey, direction: .vaultToApp, subject: replySubject)) == .response(reply))
    }

    /// Every change an attacker on the bus can make is `decryptionFailed`.
    @Test func tamperingFails() throws {
        let envelope = try sealed()
        let key = try Fixture.sessionKey()
        func fails(_ candidate: VaultEnvelope, key: SymmetricKey? = nil, direction: VaultDirection = .appToVault, subject: String? = nil) throws {
            let key = try key ?? Fixture.sessionKey()
            #expect(throws: VaultProtocolError.decryptionFailed) {
                try candidate.open(key: key, direction: direction, subject: subject ?? self.subject)
            }
        }
        // Each field.
        try fails(VaultEnvelope(sessionID: "sess-2", seq: 7, nonce: envelope.nonce, ciphertext: envelope.ciphertext))
        try fails(VaultEnvelope(sessionID: "sess-1", seq: 8, nonce: envelope.nonce, ciphertext: envelope.ciphertext))
        var nonce = envelope.nonce
        nonce[0] ^= 1
        try fails(VaultEnvelope(sessionID: "sess-1", seq: 7, nonce: nonce, ciphertext: envelope.ciphertext))
        // One byte of the ciphertext, anywhere (body and tag), and a shortened one.
        for index in [0, envelope.ciphertext.count / 2, envelope.ciphertext.count - 16, envelope.ciphertext.count - 1] {
            var ciphertext = envelope.ciphertext
            ciphertext[index] ^= 0x80
            try fails(VaultEnvelope(sessionID: "sess-1", seq: 7, nonce: envelope.nonce, ciphertext: ciphertext))
        }
        try fails(VaultEnvelope(sessionID: "sess-1", seq: 7, nonce: envelope.nonce, ciphertext: envelope.ciphertext.dropLast()))
        // Moved to another subject, reflected in the other direction, opened with another session's key.
        try fails(envelope, subject: VaultSubjects.command(Fixture.guid, type: "profile.delete"))
        try fails(envelope, subject: subject + ".x")
        try fails(envelope, direction: .vaultToApp)
        try fails(envelope, direction: .vaultToVault)
        let otherSession = try VaultSessionKey.derive(privateKey: Fixture.appKey(), peerPublicKey: Vector.vaultPublicKey, sessionID: "sess-2")
        try fails(envelope, key: otherSession)
        try fails(envelope, key: SymmetricKey(size: .bits256))
        try fails(envelope, key: SymmetricKey(size: .bits128))
        // The untouched envelope still opens.
        #expect(try envelope.open(key: key, direction: .appToVault, subject: subject) == Vector.plaintext)
    }

    @Test func sealRefusesWhatItCannotDo() throws {
        let key = try Fixture.sessionKey()
        #expect(throws: VaultProtocolError.encryptionFailed) {
            try VaultEnvelope.seal(Data(), key: SymmetricKey(size: .bits128), direction: .appToVault, sessionID: "s", seq: 1, subject: "x", random: SystemRandomSource())
        }
        #expect(throws: VaultProtocolError.encryptionFailed) {
            try VaultEnvelope.seal(Data(), key: key, direction: .appToVault, sessionID: "s", seq: 1, subject: "x", random: FixedRandom(data: Data(), short: true))
        }
        for (id, seq) in [("s.1", UInt64(1)), ("s", 0), ("s", (1 << 53) + 1)] {
            #expect(throws: VaultProtocolError.self) {
                try VaultEnvelope.seal(Data(), key: key, direction: .appToVault, sessionID: id, seq: seq, subject: "x", random: SystemRandomSource())
            }
        }
        let last = try VaultEnvelope.seal(Data(), key: key, direction: .appToVault, sessionID: "s", seq: 1 << 53, subject: "x", random: SystemRandomSource())
        #expect(try VaultEnvelope(json: last.encoded()) == last)
    }

    @Test(arguments: [
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6SlpqeoqaqrAA","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,  // nonce 13 bytes
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAA"}"#,  // ciphertext 15 bytes
        #"{"version":2,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":"1","session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","seq":7,"ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr"}"#,
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA","aad":""}"#,
        #"{"version":1,"session_id":"sess-1","seq":0,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","seq":-1,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","seq":9007199254740993,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","seq":7.0,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess.1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"s|7","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6SlpqeoqaqrAA==","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,  // padding
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Sl+qeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#,  // base64, not base64url
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAB"}"#,  // trailing bits
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":null}"#,
        #"{"version":1,"session_id":"sess-1","seq":7,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"} x"#,
        #"[]"#,
    ])
    func strictDecoding(_ text: String) {
        #expect(throws: VaultProtocolError.self) { try VaultEnvelope(json: Data(text.utf8)) }
    }

    @Test func acceptsTheSmallestEnvelopeAndRefusesOversize() throws {
        let minimal = #"{"version":1,"session_id":"sess-1","seq":9007199254740992,"nonce":"oKGio6Slpqeoqaqr","ciphertext":"AAAAAAAAAAAAAAAAAAAAAA"}"#
        let envelope = try VaultEnvelope(json: Data(minimal.utf8))
        #expect(envelope.seq == 1 << 53 && envelope.ciphertext.count == 16)
        let big = Data(#"{"version":1,"session_id":"s","seq":1,"nonce":"oKGio6Slpqeoqaqr","ciphertext":""#.utf8)
            + Data(repeating: 0x41, count: VaultEnvelope.maxBytes) + Data(#""}"#.utf8)
        #expect(throws: VaultProtocolError.tooLarge(limit: VaultEnvelope.maxBytes)) { try VaultEnvelope(json: big) }
    }
}
