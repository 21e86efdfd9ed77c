import Foundation
import SQLKit
import ServiceSupport
import TesseraJOSE

/// "Notify User Death" (IT-Wallet e-Service PDND Catalogue, Wallet Provider; 1.5 §12.1.7; `OAS3-PDND-WP.yaml`
/// `notifyUserDeath`): the PID Provider, told by the PID's Authentic Source that the user died, names the Wallet
/// Instances whose PID it revoked. "User's death MUST lead to the revocation of the Wallet Instances of the User and
/// the deletion of the User account": every instance of each account named is revoked (its status list entries
/// flipped to INVALID) and the account is deleted with all its rows — in one transaction with the call's
/// single-use `jti`.
struct UserDeathNotification: Sendable {
    static let maxIdentifiers = 100

    /// `wallet_instance_ids`: this provider's instance ids (base64url SHA-256 of the hardware key tag) or the
    /// hardware key tags themselves (what the production backend uses as the instance id).
    let identifiers: [String]

    init(json: JSONObject?) throws(WireError) {
        let bad = WireError(
            .badRequest, "invalid_request", "the body must be {\"wallet_instance_ids\": [1 to \(Self.maxIdentifiers) strings]}")
        guard let json, json.count == 1, let array = json["wallet_instance_ids"]?.arrayValue,
            (1...Self.maxIdentifiers).contains(array.count)
        else { throw bad }
        var identifiers: [String] = []
        for value in array {
            guard let id = value.stringValue, !id.isEmpty, id.utf8.count <= 256 else { throw bad }
            if !identifiers.contains(id) { identifiers.append(id) }
        }
        self.identifiers = identifiers
    }

    /// The e-service's `result`: which named instances were revoked now, were revoked before, were not found.
    struct Outcome: Sendable {
        var revoked: [String] = []
        var alreadyRevoked: [String] = []
        var notFound: [String] = []
        /// Instances of the same users that were not named but revoked with them.
        var alsoRevoked = 0
        var accountsDeleted = 0
    }

    /// Takes the call's `jti`, then revokes and deletes, all or nothing.
    func apply(on db: ProviderSQL, call: PDNDCallAuthentication, now: Date) async throws(WireError) -> Outcome {
        let identifiers = identifiers
        return try await db.transaction { tx in
            guard try await PDNDReplayStore(db: tx).take(client: call.client, jti: call.jti, expiresAt: call.expiresAt, now: now) else {
                throw WireError(.unauthorized, "invalid_token", "this Agid-JWT-Signature was already used")
            }
            var outcome = Outcome()
            var accounts = Set<String>()
            var named = Set<String>()
            for identifier in identifiers {
                guard let row = try await Self.find(identifier, on: tx) else {
                    outcome.notFound.append(identifier)
                    continue
                }
                accounts.insert(row.account_id)
                named.insert(row.id)
                if row.status == InstanceStatus.valid.rawValue { outcome.revoked.append(identifier) } else { outcome.alreadyRevoked.append(identifier) }
            }
            let store = InstanceStore(db: tx)
            for account in accounts.sorted() {
                let ids = try await store.list(accountID: account).map(\.id)
                let revoked = try await store.markRevoked(ids: ids, accountID: account, reason: .revokedByProvider, now: now)
                outcome.alsoRevoked += revoked.filter { !named.contains($0) }.count
                // The purge flips every entry of the account's instances to INVALID before deleting the rows.
                try await AccountStore(db: tx).purge(accountID: account)
                outcome.accountsDeleted += 1
            }
            return outcome
        }
    }

    /// The instance an identifier names: by id, by current hardware key tag, or by the tag of a revoked instance.
    private static func find(_ identifier: String, on db: ProviderSQL) async throws(WireError) -> WalletInstanceRow? {
        try await db.run { sql in
            try await sql.select().columns("*").from("wp_wallet_instances")
                .where("id", .equal, identifier)
                .orWhere("hardware_key_tag", .equal, identifier)
                .orWhere("revoked_key_tag", .equal, identifier)
                .first(decoding: WalletInstanceRow.self)
        }
    }
}
