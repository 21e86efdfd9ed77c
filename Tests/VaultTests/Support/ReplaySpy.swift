import Crypto
import Foundation
import NATSClient
import TesseraCore
import TesseraJOSE
import TesseraTestSupport
import Vault
import VaultProtocol

/// An independent client on a member's bus, as in issue 25: a NATS user of the member's account minted by the test
/// (as the operator can) that sees every command the app sends and every answer the vault gives, and publishes
/// captured commands again byte for byte. It opens what it captured with the app's session key only to learn the
/// event id, so that it can tell whether that event is answered again.
struct ReplaySpy {
    let observer: BusObserver
    let guid: String
    let sessionKey: SymmetricKey

    static func make(
        identity: NATSOperatorIdentity, bus: VaultBus, userGUID: String, sessionKey: String
    ) async throws -> ReplaySpy {
        let guid = try VaultSubjects.guid(userGUID: userGUID)
        guard let keyBytes = Base64URL.bytes(sessionKey) else { throw TestFixtureError("the app's session key is not base64url") }
        let userKey = try NKeyPair(type: .user, random: SystemRandomSource())
        let commands = VaultSubjects.allCommands(guid), answers = VaultSubjects.allForApp(guid)
        let jwt = try UserClaims(
            user: userKey.publicKeyString, name: "replay-spy", publish: NATSPermission(allow: [commands]),
            subscribe: NATSPermission(allow: [commands, answers]), expires: Date().addingTimeInterval(3600)
        ).encode(signedBy: try identity.accountKey(userGUID: userGUID), clock: SystemClock())
        let connection = try await bus.connector.connect(credentials: try NATSCredentials(jwt: jwt, userKey: userKey), name: "replay-spy")
        let observer = try await BusObserver(connection, subjects: [commands, answers])
        return ReplaySpy(observer: observer, guid: guid, sessionKey: SymmetricKey(data: keyBytes))
    }

    struct Capture: Sendable {
        let message: NATSMessage
        let type: String
        let eventID: String
        let seq: UInt64
    }

    /// The first command of `type` the app sent (waiting for it to arrive here).
    func captured(_ type: String) async throws -> Capture {
        let subject = VaultSubjects.command(guid, type: type)
        var found: NATSMessage?
        try await VaultReliability.eventually("the app's \(type) on the spy", within: 10) {
            found = await observer.first(on: subject)
            return found != nil
        }
        guard let message = found else { throw TestFixtureError("no \(type) captured") }
        let envelope = try VaultEnvelope(json: message.payload)
        let event = try VaultEventMessage(json: try envelope.open(key: sessionKey, direction: .appToVault, subject: subject))
        return Capture(message: message, type: type, eventID: event.id, seq: envelope.seq)
    }

    /// Publishes the captured bytes again on their subject.
    func replay(_ capture: Capture) async throws {
        try await observer.connection.publish(capture.message.payload, to: capture.message.subject)
        try await observer.connection.flush()
    }

    /// How many answers to the captured event went out (any host, any time since the spy connected).
    func answers(to capture: Capture) async -> Int {
        await observer.count(on: VaultSubjects.reply(guid, type: capture.type, id: capture.eventID))
    }

    func close() async { await observer.close() }
}
