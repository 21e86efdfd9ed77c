import Foundation
import NATSClient
import SQLKit
import ServiceSupport
import TesseraCore

/// The app's NATS credentials: issued with the user's account key (TTL clamped to 1…`VaultPolicy.maxCredentialTTLHours`),
/// recorded in `vt_app_credentials`, and the newest one's life remembered for the vault-initiated rotation
/// (`VaultRuntime.rotateCredentialsIfDue`). Bootstrap, `credentials.refresh` and that rotation all issue here, so the
/// life the rotation looks at is always the newest.
struct AppCredentials: Sendable {
    struct Issued: Sendable {
        let credentials: NATSCredentials
        let id: String
        let expires: Date
    }

    /// When the newest credentials expire and how long they were issued for.
    struct Life: Sendable, Equatable {
        let expires: Date
        let lifetime: TimeInterval
    }

    let nats: VaultNATSIdentity
    let maxHours: Int
    /// The newest life, shared by the runtime and the commands that issue (nil until first issued or loaded).
    let newest = NewestLife()

    func issue(hours requested: Int, db: ServiceSQL, now: Date) async throws -> Issued {
        let hours = min(max(requested, 1), maxHours)
        let expires = now.addingTimeInterval(TimeInterval(hours) * 3600)
        let credentials = try nats.appCredentials(expires: expires)
        let id = VaultID.make(nats.random)
        let user = nats.userGUID, natsUser = credentials.userKey.publicKeyString
        try await db.run { sql in
            try await sql.insert(into: "vt_app_credentials").columns("id", "user_guid", "nats_user", "expires_at", "created_at")
                .values(SQLBind(id), SQLBind(user), SQLBind(natsUser), SQLBind(expires.timeIntervalSince1970), SQLBind(now.timeIntervalSince1970))
                .run()
        }
        newest.life = Life(expires: expires, lifetime: expires.timeIntervalSince(now))
        return Issued(credentials: credentials, id: id, expires: expires)
    }

    /// The newest recorded credentials' life (after a restart or a takeover nothing is remembered yet).
    func newestRecorded(db: ServiceSQL) async throws -> Life? {
        let user = nats.userGUID
        let row = try await db.run { sql in
            try await sql.select().columns("expires_at", "created_at").from("vt_app_credentials").where("user_guid", .equal, user)
                .orderBy("created_at", .descending).limit(1).first(decoding: IssuedRow.self)
        }
        return row.map { Life(expires: Date(timeIntervalSince1970: $0.expires_at), lifetime: $0.expires_at - $0.created_at) }
    }

    /// A lock around the newest life: written by commands (`credentials.refresh`, off the runtime's actor) and read by
    /// the runtime.
    final class NewestLife: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Life?

        var life: Life? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }
}

private struct IssuedRow: Decodable {
    let expires_at: Double
    let created_at: Double
}
