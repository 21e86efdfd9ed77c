import Foundation
import SQLKit
import ServiceSupport
import VaultProtocol

// `credentials.{refresh, status}`: the app's NATS credentials. New ones are sealed under the session key like the
// bootstrap's; the old ones keep working until they expire (the app moves over when it reconnects).

/// `credentials.refresh`: new app credentials (TTL `requested_ttl_hours`, 24 by default, clamped), sealed under the
/// session the command came in under.
enum CredentialsRefreshCommand: VaultCommand {
    static let effect = CommandEffect.write

    static func run(_ refresh: CredentialsRefreshRequest, in context: CommandContext) async throws -> CredentialsRefreshResult {
        let issued = try await context.appCredentials.issue(hours: refresh.requestedTTLHours ?? 24, db: context.db, now: context.now)
        let sealed = try SealedCredentials.seal(
            Data(issued.credentials.credsFile.utf8), key: context.session.key, sessionID: context.session.id, random: context.random)
        return CredentialsRefreshResult(credentials: sealed, expiresAt: Int64(issued.expires.timeIntervalSince1970), credentialID: issued.id)
    }
}

/// `credentials.status`: the newest app credentials' id and how long they have left.
enum CredentialsStatusCommand: VaultCommand {
    static let effect = CommandEffect.read

    static func run(_ request: CredentialsStatusRequest, in context: CommandContext) async throws -> CredentialsStatusResult {
        let user = context.userGUID
        guard let row = try await context.db.run({ sql in
            try await sql.select().columns("id", "expires_at").from("vt_app_credentials").where("user_guid", .equal, user)
                .orderBy("created_at", .descending).limit(1).first(decoding: CredentialRow.self)
        }) else { throw VaultEventError.notFound("app credentials") }
        let expires = Int64(row.expires_at)
        return CredentialsStatusResult(credentialID: row.id, expiresAt: expires, ttlSeconds: max(0, expires - context.timestamp))
    }
}
