import Crypto
import Foundation
import VaultProtocol

/// `session.rotate` (vault-design.md, "Rotation": the app rotates after 1000 messages or 24 h): a new session from
/// the app's new key and a fresh one of the vault's. The old session keeps working for the grace period, so messages
/// already on their way are not lost; the answer still goes out under the old one (the app has no new key before).
enum SessionRotateCommand: VaultCommand {
    static let effect = CommandEffect.session

    static func run(_ request: SessionRotateRequest, in context: CommandContext) async throws -> SessionRotateResult {
        let now = context.now
        let newID = VaultID.make(context.random)
        let vaultKey = try context.newAgreementKey()
        let key = try VaultSessionKey.derive(privateKey: vaultKey, peerPublicKey: request.newAppPublicKey, sessionID: newID)
        let expires = now.addingTimeInterval(context.policy.sessionLifetime)
        // Saved before it is used: a host that takes the vault over knows both sessions.
        let store = VaultSessionStore(db: context.db, keyring: context.keyring)
        try await store.insert(id: newID, key: key, createdAt: now, expiresAt: expires)
        try await store.supersede(id: context.session.id, at: now)
        await context.sessions.adopt(LiveSession(new: newID, key: key, expiresAt: expires), superseding: context.session.id, at: now)
        try? await store.purge(now: now, grace: context.policy.rotationGrace)
        return SessionRotateResult(
            newVaultPublicKey: vaultKey.publicKey.rawRepresentation, newSessionID: newID, sessionExpiresAt: Int64(expires.timeIntervalSince1970))
    }
}
