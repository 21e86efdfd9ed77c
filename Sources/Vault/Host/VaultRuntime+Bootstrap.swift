import Crypto
import Foundation
import NATSClient
import SQLKit
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
            event.type == VaultSubjects.bootstrapType, Self.isEventID(event.id),
            let payload = try? BootstrapPayload(json: event.payload)
        else { return drop(.malformed) }
        let now = context.clock.now()
        let policy = context.policy
        do {
            let sessionID = newID()
            let vaultKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: context.random.bytes(32))
            let key = try VaultSessionKey.derive(privateKey: vaultKey, peerPublicKey: payload.appSessionPublicKey, sessionID: sessionID)
            let (credentials, credentialID, expires) = try await appCredentials(hours: payload.requestedTTLHours, db: context.sql, now: now)
            let sessionExpires = now.addingTimeInterval(policy.sessionLifetime)
            try await recordSession(id: sessionID, key: key, now: now, expires: sessionExpires)
            sessions[sessionID] = LiveSession(
                id: sessionID, key: key, window: ReplayWindow(), receiveReserved: 0, expiresAt: sessionExpires, supersededAt: nil,
                sendSeq: 0, sendReserved: 0)
            currentSessionID = sessionID
            pruneSessions()
            let result = BootstrapResult(
                credentials: try SealedCredentials.seal(Data(credentials.credsFile.utf8), key: key, sessionID: sessionID, random: context.random),
                natsEndpoint: context.bus.endpoint, ownerSpace: VaultSubjects.ownerSpace(guid),
                messageSpace: VaultSubjects.messageSpace(guid),
                topics: [VaultSubjects.allCommands(guid), VaultSubjects.allForApp(guid)],
                expiresAt: Int64(expires.timeIntervalSince1970), ttlSeconds: Int64(expires.timeIntervalSince(now)), credentialID: credentialID,
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

    /// New app NATS credentials (TTL clamped to 1…max hours), recorded, and sealed under the current session key.
    func issueAppCredentials(hours requested: Int?, db: ServiceSQL, now: Date) async throws -> CredentialsRefreshResult {
        guard let sessionID = currentSessionID, let session = sessions[sessionID] else { throw VaultEventError(code: "invalid_request", message: "no session") }
        let issued = try await appCredentials(hours: requested ?? 24, db: db, now: now)
        let sealed = try SealedCredentials.seal(Data(issued.credentials.credsFile.utf8), key: session.key, sessionID: sessionID, random: context.random)
        return CredentialsRefreshResult(credentials: sealed, expiresAt: Int64(issued.expires.timeIntervalSince1970), credentialID: issued.id)
    }

    func appCredentials(hours requested: Int, db: ServiceSQL, now: Date) async throws -> (credentials: NATSCredentials, id: String, expires: Date) {
        let hours = min(max(requested, 1), context.policy.maxCredentialTTLHours)
        let expires = now.addingTimeInterval(TimeInterval(hours) * 3600)
        let credentials = try nats.appCredentials(expires: expires)
        let id = newID()
        let user = userGUID, natsUser = credentials.userKey.publicKeyString
        try await db.run { sql in
            try await sql.insert(into: "vt_app_credentials").columns("id", "user_guid", "nats_user", "expires_at", "created_at")
                .values(SQLBind(id), SQLBind(user), SQLBind(natsUser), SQLBind(expires.timeIntervalSince1970), SQLBind(now.timeIntervalSince1970))
                .run()
        }
        appCredentialsLife = (expires, expires.timeIntervalSince(now))
        return (credentials, id, expires)
    }
}
