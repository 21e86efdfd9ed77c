import Foundation
import SQLKit
import ServiceSupport
import TesseraJOSE
import VaultProtocol

/// `credentials.{refresh, status}`: the app's NATS credentials. New ones are sealed under the session key like the
/// bootstrap's; the old ones keep working until they expire (the app moves over when it reconnects).
enum NATSCredentialHandlers {
    static func run(_ request: HandlerRequest, db: ServiceSQL) async throws -> JSONObject {
        switch request.handler {
        case .credentialsRefresh:
            let refresh = try CredentialsRefreshRequest(payload: request.payload)
            return try await request.runtime.issueAppCredentials(hours: refresh.requestedTTLHours, db: db, now: request.now).result
        case .credentialsStatus:
            _ = try CredentialsStatusRequest(payload: request.payload)
            let user = request.userGUID
            guard let row = try await db.run({ sql in
                try await sql.select().columns("id", "expires_at").from("vt_app_credentials").where("user_guid", .equal, user)
                    .orderBy("created_at", .descending).limit(1).first(decoding: CredentialRow.self)
            }) else { throw VaultEventError.notFound("app credentials") }
            let expires = Int64(row.expires_at)
            return CredentialsStatusResult(credentialID: row.id, expiresAt: expires, ttlSeconds: max(0, expires - request.timestamp)).result
        default:
            throw VaultEventError(code: "invalid_request", message: "not a credentials command")
        }
    }
}
