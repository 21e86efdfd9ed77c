import Crypto
import Foundation
import SQLKit
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// A registered Wallet Instance as stored (IT-Wallet: hardware key tag, public key, platform, device facts,
/// App Attest counter), bound to one account.
struct WalletInstanceRow: Codable, Sendable {
    let id: String
    let account_id: String
    let hardware_key_tag: String?
    let public_key: String?
    let platform: String
    let device: String
    let sign_count: Int64
    let status: String
    let pid_status: String
    let created_at: Double
    let revoked_at: Double?
    let revocation_reason: String?
}

enum InstanceStatus: String, Sendable { case valid, revoked }
/// Why an instance was revoked, in the production backend's vocabulary (io-wallet `revocation_reason`:
/// `CERTIFICATE_REVOKED_BY_ISSUER`, `NEW_WALLET_INSTANCE_CREATED`, `WALLET_INSTANCE_RENEWAL`, `REVOKED_BY_USER`).
enum RevocationReason: String, Sendable {
    /// The user revoked it: web portal, account API, or the 1.0 management API with their session.
    case revokedByUser = "REVOKED_BY_USER"
    /// The provider revoked it on another party's word (the PID Provider's "Notify User Death"). The production
    /// client knows only the four reasons above and shows this one as "revoked by the Wallet Provider".
    case revokedByProvider = "CERTIFICATE_REVOKED_BY_ISSUER"
}
/// What the provider knows of the instance's PID: none yet, active, or revoked because a newer instance of the
/// same user obtained one (only one Valid instance per user).
enum PIDStatus: String, Sendable { case none, active, revoked }

struct InstanceStore: Sendable {
    let db: ProviderSQL

    /// The instance id the wallet can compute itself: base64url(SHA-256(hardware_key_tag)).
    static func instanceID(hardwareKeyTag: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(hardwareKeyTag.utf8)))
    }

    /// Inserts a new instance; false when the hardware key tag is already registered. One statement,
    /// `INSERT … ON CONFLICT DO NOTHING RETURNING id`: the primary key (derived from the tag) and the unique tag
    /// index decide, so two concurrent registrations of one tag cannot both succeed.
    func insert(
        accountID: String, hardwareKeyTag: String, publicKeyJWK: String, platform: String, device: String,
        signCount: Int64, now: Date
    ) async throws(WireError) -> Bool {
        let id = Self.instanceID(hardwareKeyTag: hardwareKeyTag)
        return try await db.run { sql in
            try await sql.insert(into: "wp_wallet_instances")
                .columns("id", "account_id", "hardware_key_tag", "public_key", "platform", "device", "sign_count",
                    "status", "pid_status", "created_at")
                .values(SQLBind(id), SQLBind(accountID), SQLBind(hardwareKeyTag), SQLBind(publicKeyJWK),
                    SQLBind(platform), SQLBind(device), SQLBind(signCount), SQLBind(InstanceStatus.valid.rawValue),
                    SQLBind(PIDStatus.none.rawValue), SQLBind(now.timeIntervalSince1970))
                .ignoringConflicts()
                .returning("id").first() != nil
        }
    }

    func find(id: String) async throws(WireError) -> WalletInstanceRow? {
        try await db.run { sql in
            try await sql.select().columns("*").from("wp_wallet_instances").where("id", .equal, id)
                .first(decoding: WalletInstanceRow.self)
        }
    }

    func list(accountID: String) async throws(WireError) -> [WalletInstanceRow] {
        try await db.run { sql in
            try await sql.select().columns("*").from("wp_wallet_instances").where("account_id", .equal, accountID)
                .orderBy("created_at").all(decoding: WalletInstanceRow.self)
        }
    }

    /// In an attestation's transaction: takes the instance's row while it is valid, so that a concurrent revocation
    /// either came first (false) or waits for the commit and then flips what the transaction allocated. Moves the
    /// App Attest counter when `counter` is given, only upwards (of concurrent requests replaying one assertion at
    /// most one moves it), and records the Wallet Solution version a 1.3+ request names.
    func claim(id: String, counter: Int64?, walletSolutionVersion: String?) async throws(WireError) -> Bool {
        try await db.run { sql in
            var update = sql.update("wp_wallet_instances").set("status", to: SQLColumn("status"))
            if let counter { update = update.set("sign_count", to: SQLBind(counter)).where("sign_count", .lessThan, counter) }
            if let walletSolutionVersion { update = update.set("wallet_solution_version", to: SQLBind(walletSolutionVersion)) }
            return try await update.where("id", .equal, id).where("status", .equal, InstanceStatus.valid.rawValue)
                .returning("id").first() != nil
        }
    }

    /// Revokes an instance of the account: its hardware key tag and public key leave the account (kept only as
    /// `revoked_key_tag`, so the instance can be told it was revoked, with `reason`), and every status list entry of
    /// it (1.5 WIA, 1.3/1.5 Key Attestations) becomes INVALID, in one transaction. The provider's one revocation: the
    /// portal, the account API and the management endpoints call it. False when there is no such valid instance.
    func revoke(
        id: String, accountID: String, reason: RevocationReason = .revokedByUser, now: Date
    ) async throws(WireError) -> Bool {
        try await db.transaction { tx in
            let revoked = try await InstanceStore(db: tx).markRevoked(ids: [id], accountID: accountID, reason: reason, now: now)
            try await StatusListStore.invalidate(instanceIDs: revoked, on: tx)
            return !revoked.isEmpty
        }
    }

    /// The valid instances among `ids` (of `accountID`, when given) become revoked for `reason`; returns their ids.
    /// Rows are taken in id order, so concurrent revocations of overlapping sets never wait on each other in a cycle.
    /// Callers flip the status list entries in the same transaction (`StatusListStore.invalidate`).
    func markRevoked(ids: [String], accountID: String?, reason: RevocationReason, now: Date) async throws(WireError) -> [String] {
        struct Row: Decodable { let id: String }
        return try await db.run { sql in
            var revoked: [String] = []
            for id in Set(ids).sorted() {
                var update = sql.update("wp_wallet_instances")
                    .set("revoked_key_tag", to: SQLColumn("hardware_key_tag"))
                    .set("hardware_key_tag", to: SQLLiteral.null).set("public_key", to: SQLLiteral.null)
                    .set("status", to: SQLBind(InstanceStatus.revoked.rawValue))
                    .set("revoked_at", to: SQLBind(now.timeIntervalSince1970))
                    .set("revocation_reason", to: SQLBind(reason.rawValue))
                    .where("id", .equal, id).where("status", .equal, InstanceStatus.valid.rawValue)
                if let accountID { update = update.where("account_id", .equal, accountID) }
                if try await update.returning("id").first(decoding: Row.self) != nil { revoked.append(id) }
            }
            return revoked
        }
    }

    /// Records the instance's PID. A PID issued to this instance revokes the PID of every other instance of the
    /// account (only one Valid instance per user, IT-Wallet Wallet Instance lifecycle).
    func setPID(id: String, accountID: String, status: PIDStatus) async throws(WireError) -> Bool {
        try await db.transaction { tx in
            try await tx.run { sql in
                let updated = try await sql.update("wp_wallet_instances").set("pid_status", to: SQLBind(status.rawValue))
                    .where("id", .equal, id).where("account_id", .equal, accountID)
                    .where("status", .equal, InstanceStatus.valid.rawValue)
                    .returning("id").first() != nil
                if updated, status == .active {
                    try await sql.update("wp_wallet_instances").set("pid_status", to: SQLBind(PIDStatus.revoked.rawValue))
                        .where("account_id", .equal, accountID).where("id", .notEqual, id)
                        .where("pid_status", .equal, PIDStatus.active.rawValue).run()
                }
                return updated
            }
        }
    }
}
