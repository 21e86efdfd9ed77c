import Crypto
import Foundation
import NATSClient
import ServiceSupport
import TesseraJOSE
import VaultProtocol

extension VaultRuntime {
    /// `app.bootstrap` (the only command in the clear): a new E2E session from the app's X25519 key and the vault's
    /// fresh one, and the app's full NATS credentials sealed under the new session key; the reply is signed with
    /// the vault's Ed25519 identity key, whose public half the app got from the ledger at enrollment, so a party
    /// in the middle of the bus can neither read the session nor answer in the vault's place.
    func bootstrap(_ message: NATSMessage) async {
        guard message.payload.count <= 16 * 1024, let event = try? VaultEventMessage(json: message.payload),
            event.type == VaultSubjects.bootstrapType, VaultID.isToken(event.id),
            let payload = try? BootstrapPayload(json: event.payload)
        else { return drop(.malformed) }
        let now = context.clock.now()
        let policy = context.policy
        do {
            let sessionID = VaultID.make(context.random)
            let vaultKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: context.random.bytes(32))
            let key = try VaultSessionKey.derive(privateKey: vaultKey, peerPublicKey: payload.appSessionPublicKey, sessionID: sessionID)
            let issued = try await appCredentials.issue(hours: payload.requestedTTLHours, db: context.sql, now: now)
            let sessionExpires = now.addingTimeInterval(policy.sessionLifetime)
            try await recordSession(id: sessionID, key: key, now: now, expires: sessionExpires)
            gate.add(LiveSession(new: sessionID, key: key, expiresAt: sessionExpires), now: context.clock.now())
            let result = BootstrapResult(
                credentials: try SealedCredentials.seal(
                    Data(issued.credentials.credsFile.utf8), key: key, sessionID: sessionID, random: context.random),
                natsEndpoint: context.bus.endpoint, ownerSpace: VaultSubjects.ownerSpace(guid),
                messageSpace: VaultSubjects.messageSpace(guid),
                topics: [VaultSubjects.allCommands(guid), VaultSubjects.allForApp(guid)],
                expiresAt: Int64(issued.expires.timeIntervalSince1970), ttlSeconds: Int64(issued.expires.timeIntervalSince(now)),
                credentialID: issued.id,
                sessionInfo: SessionInfo(
                    sessionID: sessionID, vaultSessionPublicKey: vaultKey.publicKey.rawRepresentation,
                    sessionExpiresAt: Int64(sessionExpires.timeIntervalSince1970), encryptionEnabled: true,
                    appSessionPublicKey: payload.appSessionPublicKey))
            let response = VaultEventResponse.success(eventID: event.id, result: result.json, timestamp: Int64(now.timeIntervalSince1970))
            let reply = try SignedBootstrapReply.sign(response, identityKey: identityKey)
            try await connection?.publish(
                Data(reply.utf8), to: VaultSubjects.reply(guid, type: VaultSubjects.bootstrapType, id: event.id), replyTo: nil, headers: nil)
        } catch {
            // A bootstrap that cannot be completed gets no answer; the app retries with a new request.
            drop(.malformed)
        }
    }

    func recordSession(id: String, key: SymmetricKey, now: Date, expires: Date) async throws {
        try await sessionStore.insert(id: id, key: key, createdAt: now, expiresAt: expires)
    }
}
