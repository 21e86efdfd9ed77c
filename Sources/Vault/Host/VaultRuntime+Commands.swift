import Crypto
import Foundation
import ServiceSupport
import TesseraJOSE
import VaultProtocol

extension VaultRuntime {
    /// Runs one decrypted command. A command that changes state runs once per event id: in one transaction with
    /// the record of its answer, so a retry (same id, new envelope) gets the first answer. A replay after a
    /// takeover never gets here: `receive` saved the session's floor above its seq before it was first answered.
    func handle(_ event: VaultEventMessage, sessionID: String) async -> VaultEventResponse {
        let now = context.clock.now()
        let timestamp = Int64(now.timeIntervalSince1970)
        guard let handler = VaultHandler(rawValue: event.type) else {
            return .failure(eventID: event.id, error: VaultEventError(code: "unknown_command", message: "no handler for \(event.type)"), timestamp: timestamp)
        }
        if handler == .sessionRotate { return await rotateSession(event, sessionID: sessionID, now: now) }
        await rotateCredentialsIfDue(now: now)
        let request = HandlerRequest(
            handler: handler, payload: event.payload, userGUID: userGUID, guid: guid, keyring: keyring, now: now, runtime: self,
            cache: handler.readsOnly ? recordCache : nil)
        // Whatever else runs may write records (a refused command rolls back, but forgetting is always safe).
        defer { if !handler.readsOnly { recordCache.invalidate() } }
        guard handler.changesState else {
            let db = context.sql
            return await Self.answer(event.id, timestamp) { try await VaultHandlers.run(request, db: db) }
        }
        let keyring = self.keyring
        do {
            let encoded = try await context.sql.transaction(rollback: Refused.self) { tx in
                let sessions = VaultSessionStore(db: tx, keyring: keyring)
                if let earlier = try await sessions.handled(eventID: event.id) { return earlier }
                let response = await Self.answer(event.id, timestamp) { try await VaultHandlers.run(request, db: tx) }
                // A refused command leaves nothing of what its handler wrote before refusing: roll it all back.
                guard response.success else { throw Refused(response: response) }
                return try await Self.record(response, eventID: event.id, now: now, in: sessions)
            }
            await request.afterCommit()
            return try VaultEventResponse(json: encoded)
        } catch let refused as Refused {
            // A failure of the storage is not an answer: nothing is kept, a retry of the event runs it again.
            if let code = refused.response.error?.code, Self.transient.contains(code) { return refused.response }
            // A refusal by the rules is kept (the same answer for a retry of the event).
            let encoded = try? await context.sql.transaction { tx in
                try await Self.record(refused.response, eventID: event.id, now: now, in: VaultSessionStore(db: tx, keyring: keyring))
            }
            return encoded == nil ? Self.unavailable(event.id, timestamp) : refused.response
        } catch {
            return Self.unavailable(event.id, timestamp)
        }
    }

    /// Keeps the answer for retries, in the caller's transaction.
    private static func record(_ response: VaultEventResponse, eventID: String, now: Date, in sessions: VaultSessionStore) async throws -> Data {
        let encoded = response.encoded()
        try await sessions.recordHandled(eventID: eventID, response: encoded, now: now)
        return encoded
    }

    static let transient: Set<String> = ["server_error", "temporarily_unavailable"]

    private static func unavailable(_ eventID: String, _ timestamp: Int64) -> VaultEventResponse {
        .failure(eventID: eventID, error: VaultEventError(code: "temporarily_unavailable", message: "the vault's storage is not available"), timestamp: timestamp)
    }

    /// Thrown out of a command's transaction to roll back a handler that refused the command.
    private struct Refused: Error {
        let response: VaultEventResponse
    }

    /// The handler's result, or its rule error as the response's error (anything else: `server_error`).
    static func answer(_ eventID: String, _ timestamp: Int64, _ body: () async throws -> JSONObject) async -> VaultEventResponse {
        do {
            return .success(eventID: eventID, result: try await body(), timestamp: timestamp)
        } catch {
            return failure(eventID, timestamp, error)
        }
    }

    static func failure(_ eventID: String, _ timestamp: Int64, _ error: any Error) -> VaultEventResponse {
        switch error {
        case let error as VaultEventError:
            return .failure(eventID: eventID, error: error, timestamp: timestamp)
        case let error as WireError where error.status == .serviceUnavailable:
            return .failure(eventID: eventID, error: VaultEventError(code: "temporarily_unavailable", message: "the vault's storage is not available"), timestamp: timestamp)
        case let error as VaultProtocolError:
            return .failure(eventID: eventID, error: VaultEventError(code: "invalid_request", message: error.description), timestamp: timestamp)
        default:
            return .failure(eventID: eventID, error: VaultEventError(code: "server_error", message: "the command could not be handled"), timestamp: timestamp)
        }
    }

    /// `session.rotate`: a new session from the app's new key; the old one keeps working for the grace period, so
    /// messages already on their way are not lost. The answer still goes out under the old session.
    func rotateSession(_ event: VaultEventMessage, sessionID: String, now: Date) async -> VaultEventResponse {
        let timestamp = Int64(now.timeIntervalSince1970)
        do {
            let request = try SessionRotateRequest(payload: event.payload)
            let newID = newID()
            let vaultKey = try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: context.random.bytes(32))
            let key = try VaultSessionKey.derive(privateKey: vaultKey, peerPublicKey: request.newAppPublicKey, sessionID: newID)
            let expires = now.addingTimeInterval(context.policy.sessionLifetime)
            try await recordSession(id: newID, key: key, now: now, expires: expires)
            try await sessionStore.supersede(id: sessionID, at: now)
            sessions[newID] = LiveSession(
                id: newID, key: key, window: ReplayWindow(), receiveReserved: 0, expiresAt: expires, supersededAt: nil, sendSeq: 0,
                sendReserved: 0)
            sessions[sessionID]?.supersededAt = now
            currentSessionID = newID
            pruneSessions()
            try? await sessionStore.purge(now: now, grace: context.policy.rotationGrace)
            let result = SessionRotateResult(
                newVaultPublicKey: vaultKey.publicKey.rawRepresentation, newSessionID: newID,
                sessionExpiresAt: Int64(expires.timeIntervalSince1970))
            return .success(eventID: event.id, result: result.result, timestamp: timestamp)
        } catch {
            return Self.failure(event.id, timestamp, error)
        }
    }
}
