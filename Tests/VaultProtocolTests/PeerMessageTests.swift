import Crypto
import Foundation
import TesseraCore
import TesseraJOSE
import Testing
import VaultProtocol

@Suite struct PeerMessageTests {
    private func invite(label: String? = "Ada") throws -> ConnectionInvite {
        ConnectionInvite(
            connectionID: "conn-1", inviterGUID: Fixture.guid, inviterConnectionKey: try Fixture.appKey().publicKey.rawRepresentation,
            credentials: "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.sig\n------END NATS USER JWT------\n",
            natsEndpoint: "nats://127.0.0.1:4222", expiresAt: 1_700_086_400, label: label)
    }

    @Test func inviteRoundTrip() throws {
        for candidate in [try invite(), try invite(label: nil)] {
            let text = candidate.encoded()
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(try ConnectionInvite(string: text) == candidate)
        }
        // The largest valid invite still fits the string limit of connection.store-credentials.
        var largest = try invite(label: string(VaultLimits.maxKeyBytes))
        largest.credentials = string(ConnectionInvite.maxCredentialsBytes)
        largest.natsEndpoint = string(ConnectionInvite.maxEndpointBytes)
        largest.connectionID = string(VaultLimits.maxTokenBytes)
        #expect(largest.encoded().utf8.count <= ConnectionInvite.maxStringBytes)
        #expect(try ConnectionInvite(string: largest.encoded()) == largest)
        #expect(try ConnectionStoreCredentialsRequest(payload: ConnectionStoreCredentialsRequest(invite: largest.encoded()).payload).invite == largest.encoded())
    }

    @Test func inviteRefusals() throws {
        let good = try invite().json
        var cases = ["", "!!!", "eyJ2IjoxfQ=", Base64URL.encode(Data("[]".utf8)), Base64URL.encode(Data("{".utf8)), string(ConnectionInvite.maxStringBytes + 1, "A")]
        for (name, value) in [("v", JSONValue.integer(2)), ("inviter_guid", .string(Fixture.guid.uppercased())), ("inviter_guid", "0f1e"), ("extra", 1),
            ("inviter_connection_key", .string(Base64URL.encode(Data(count: 16)))), ("credentials", .string(string(ConnectionInvite.maxCredentialsBytes + 1))),
            ("connection_id", "a.b"), ("expires_at", "soon")]
        {
            var json = good
            json[name] = value
            cases.append(Base64URL.encode(json.serialized()))
        }
        for text in cases {
            #expect(throws: VaultProtocolError.self) { try ConnectionInvite(string: text) }
        }
    }

    /// A accepts B's invite: B derives the connection key from its own key and A's (in the invite), seals the accept
    /// with its new key in the clear; A derives the same key from the clear key and opens it.
    @Test func acceptAndMessageBetweenVaults() throws {
        let inviter = Curve25519.KeyAgreement.PrivateKey(), accepter = Curve25519.KeyAgreement.PrivateKey()
        let invite = ConnectionInvite(
            connectionID: "conn-7", inviterGUID: Fixture.guid, inviterConnectionKey: inviter.publicKey.rawRepresentation, credentials: "creds",
            natsEndpoint: "nats://n", expiresAt: 1)
        let received = try ConnectionInvite(string: invite.encoded())
        let accepterKey = try VaultSessionKey.deriveConnection(privateKey: accepter, peerPublicKey: received.inviterConnectionKey, connectionID: received.connectionID)
        let subject = VaultSubjects.peer(received.inviterGUID, kind: PeerMessageKind.connectionAccept.rawValue)
        let accept = PeerConnectionAccept(credentials: "accepter creds", accepterGUID: Fixture.peerGUID)
        let message = try PeerMessage.seal(
            accept, key: accepterKey, connectionID: received.connectionID, senderGUID: Fixture.peerGUID,
            senderConnectionKey: accepter.publicKey.rawRepresentation, seq: 1, subject: subject, random: SystemRandomSource())
        #expect(message.envelope.sessionID == "conn-7")

        let arrived = try PeerMessage(json: message.encoded())
        #expect(arrived == message)
        let inviterKey = try VaultSessionKey.deriveConnection(
            privateKey: inviter, peerPublicKey: arrived.senderConnectionKey ?? Data(), connectionID: arrived.connectionID)
        #expect(try arrived.open(PeerConnectionAccept.self, key: inviterKey, subject: subject) == accept)
        // Not as another kind, not on another subject, not with another key.
        #expect(throws: VaultProtocolError.self) { try arrived.open(PeerTextMessage.self, key: inviterKey, subject: subject) }
        #expect(throws: VaultProtocolError.decryptionFailed) {
            try arrived.open(PeerConnectionAccept.self, key: inviterKey, subject: VaultSubjects.peer(Fixture.peerGUID, kind: "connection.accept"))
        }
        #expect(throws: VaultProtocolError.decryptionFailed) { try arrived.open(PeerConnectionAccept.self, key: SymmetricKey(size: .bits256), subject: subject) }

        // Then a message the other way, without a key in the clear.
        let text = PeerTextMessage(messageID: "m1", content: "hello", contentType: "text/plain", sentAt: 2)
        let textSubject = VaultSubjects.peer(Fixture.peerGUID, kind: "message")
        let sent = try PeerMessage.seal(text, key: inviterKey, connectionID: "conn-7", senderGUID: Fixture.guid, seq: 1, subject: textSubject, random: SystemRandomSource())
        #expect(sent.senderConnectionKey == nil)
        #expect(try PeerMessage(json: sent.encoded()).open(PeerTextMessage.self, key: accepterKey, subject: textSubject) == text)
    }

    @Test func peerMessageRefusals() throws {
        let key = SymmetricKey(data: Vector.connectionKey)
        let envelope = try VaultEnvelope.seal(Data("{}".utf8), key: key, direction: .vaultToVault, sessionID: "conn-1", seq: 1, subject: "s", random: SystemRandomSource())
        let good = PeerMessage(kind: .connectionRevoke, connectionID: "conn-1", senderGUID: Fixture.guid, envelope: envelope)
        #expect(try PeerMessage(json: good.encoded()) == good)
        func refused(_ change: (inout JSONObject) -> Void) {
            var json = good.json
            change(&json)
            #expect(throws: VaultProtocolError.self) { try PeerMessage(json: json.serialized()) }
        }
        refused { $0["kind"] = "chat" }
        refused { $0["kind"] = nil }
        refused { $0["connection_id"] = "conn-2" }  // not the envelope's session
        refused { $0["sender_guid"] = "x" }
        refused { $0["sender_connection_key"] = .string(Fixture.appPublicKeyB64) }  // only on accept and rotate
        refused { $0["kind"] = "connection.accept" }  // accept needs the key
        refused { $0["kind"] = "connection.rotate" }
        refused { $0["envelope"] = "x" }
        refused { $0["envelope"] = .object(["version": 1]) }
        refused { $0["extra"] = 1 }
        var rotate = good.json
        rotate["kind"] = "connection.rotate"
        rotate["sender_connection_key"] = .string(Fixture.appPublicKeyB64)
        #expect(try PeerMessage(json: rotate.serialized()).senderConnectionKey == Vector.appPublicKey)
        #expect(throws: VaultProtocolError.self) { try PeerMessage(json: Data("{}".utf8)) }
        #expect(throws: VaultProtocolError.self) { try PeerMessage(json: Data(count: VaultLimits.maxMessageBytes + 1)) }
    }

    @Test func pushesTravelAsEvents() throws {
        let push = ConnectionRevokedPush(connectionID: "conn-1", reason: "done")
        let event = push.event(id: "p1", timestamp: 3)
        #expect(event.type == "connection-revoked")
        let decoded = try VaultEventMessage(json: event.encoded())
        #expect(try decoded.push(ConnectionRevokedPush.self) == push)
        #expect(throws: VaultProtocolError.self) { try decoded.push(NewMessagePush.self) }
    }
}
