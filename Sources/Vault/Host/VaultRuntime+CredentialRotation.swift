import Foundation
import SQLKit
import ServiceSupport
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
        if appCredentialsLife == nil { appCredentialsLife = try? await newestAppCredentials() }
        guard let current = appCredentialsLife, current.expires.timeIntervalSince(now) < current.lifetime / 4,
            let sessionID = currentSessionID, let session = sessions[sessionID]
        else { return }
        do {
            let hours = max(1, Int((current.lifetime / 3600).rounded()))
            let issued = try await appCredentials(hours: hours, db: context.sql, now: now)
            appCredentialsLife = (issued.expires, issued.expires.timeIntervalSince(now))
            let sealed = try SealedCredentials.seal(
                Data(issued.credentials.credsFile.utf8), key: session.key, sessionID: sessionID, random: context.random)
            let push = CredentialsRotatePush(credentials: sealed, expiresAt: Int64(issued.expires.timeIntervalSince1970), credentialID: issued.id)
            await self.push(.credentialsRotate, payload: push.payload)
        } catch {
            // Tried again after the next command.
            appCredentialsLife = current
        }
    }

    private func newestAppCredentials() async throws -> (expires: Date, lifetime: TimeInterval)? {
        let user = userGUID
        let row = try await context.sql.run { sql in
            try await sql.select().columns("expires_at", "created_at").from("vt_app_credentials").where("user_guid", .equal, user)
                .orderBy("created_at", .descending).limit(1).first(decoding: IssuedRow.self)
        }
        return row.map { (Date(timeIntervalSince1970: $0.expires_at), $0.expires_at - $0.created_at) }
    }
}

private struct IssuedRow: Decodable {
    let expires_at: Double
    let created_at: Double
}
