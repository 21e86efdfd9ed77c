import Foundation
import VaultProtocol

extension VaultRuntime {
    /// Vault-initiated NATS credential rotation (`forApp.credentials.rotate`): once the app's newest credentials have
    /// less than a quarter of their lifetime left, the vault issues new ones for the same lifetime and pushes them
    /// sealed under the app's current session; the app saves them and uses them from its next connection on (the old
    /// ones keep working until they expire, so nothing is cut off mid-session).
    func rotateCredentialsIfDue(now: Date) async {
        // Commands run concurrently (reads): one rotation at a time, the others see it in progress.
        guard !rotatingCredentials else { return }
        rotatingCredentials = true
        defer { rotatingCredentials = false }
        let newest = appCredentials.newest
        if newest.life == nil { newest.life = try? await appCredentials.newestRecorded(db: context.sql) }
        guard let current = newest.life, current.expires.timeIntervalSince(now) < current.lifetime / 4, let session = gate.current else {
            return
        }
        do {
            let hours = max(1, Int((current.lifetime / 3600).rounded()))
            let issued = try await appCredentials.issue(hours: hours, db: context.sql, now: now)
            let sealed = try SealedCredentials.seal(
                Data(issued.credentials.credsFile.utf8), key: session.key, sessionID: session.id, random: context.random)
            let push = CredentialsRotatePush(credentials: sealed, expiresAt: Int64(issued.expires.timeIntervalSince1970), credentialID: issued.id)
            await self.push(.credentialsRotate, payload: push.payload)
        } catch {
            // Tried again after the next command.
            newest.life = current
        }
    }
}
