import Crypto
import Foundation
import SQLKit
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// The vaults themselves: their keys, desired and actual state, and the lease that puts each running vault on
/// exactly one host. Every lease change is one conditional statement, so two hosts never both win a vault.
struct VaultStore: Sendable {
    let db: ServiceSQL
    let master: ServiceMasterKey

    // MARK: vaults

    /// Creates the vault once; a second call for the same user leaves the first one (and its keys) in place.
    func insertVault(
        user: String, identityPublicKey: Data, identitySeed: Data, dataKey: Data, now: Date
    ) async throws(WireError) {
        let identitySealed = Base64URL.encode(try master.seal(identitySeed, purpose: "vault-identity", id: user))
        let dataKeySealed = Base64URL.encode(try master.seal(dataKey, purpose: "vault-data-key", id: user))
        let time = now.timeIntervalSince1970
        try await db.run { sql in
            try await sql.raw("""
                INSERT INTO vt_vaults (id, identity_public_key, identity_sealed, data_key_sealed, desired_state, state,
                  progress, lease_holder, lease_expires, record_version, created_at, updated_at)
                VALUES (\(bind: user), \(bind: Base64URL.encode(identityPublicKey)), \(bind: identitySealed),
                  \(bind: dataKeySealed), 'running', 'provisioning', 10, NULL, 0, 0, \(bind: time), \(bind: time))
                ON CONFLICT (id) DO NOTHING
                """).run()
        }
    }

    func vault(_ user: String) async throws(WireError) -> VaultRow? {
        try await db.run { sql in
            try await sql.select().columns("*").from("vt_vaults").where("id", .equal, user).first(decoding: VaultRow.self)
        }
    }

    func keyring(_ row: VaultRow) throws(WireError) -> VaultKeyring {
        guard let sealed = try? Base64URL.decode(row.data_key_sealed) else { throw .server }
        let key = try master.open(sealed, purpose: "vault-data-key", id: row.id)
        return VaultKeyring(user: row.id, dataKey: SymmetricKey(data: key))
    }

    func identityKey(_ row: VaultRow) throws(WireError) -> Curve25519.Signing.PrivateKey {
        guard let sealed = try? Base64URL.decode(row.identity_sealed) else { throw .server }
        let seed = try master.open(sealed, purpose: "vault-identity", id: row.id)
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) else { throw .server }
        return key
    }

    /// Sets what the vault should be; a terminated vault stays terminated. Returns the row afterwards.
    func setDesiredState(_ user: String, _ desired: String, state: String, now: Date) async throws(WireError) -> VaultRow? {
        try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_vaults SET desired_state = \(bind: desired), state = \(bind: state), updated_at = \(bind: now.timeIntervalSince1970)
                WHERE id = \(bind: user) AND desired_state <> 'terminated'
                """).run()
        }
        return try await vault(user)
    }

    /// What the host reports about a vault it holds (only while it holds the lease).
    func report(_ user: String, host: String, state: String, progress: Int, now: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_vaults SET state = \(bind: state), progress = \(bind: progress), updated_at = \(bind: now.timeIntervalSince1970)
                WHERE id = \(bind: user) AND lease_holder = \(bind: host) AND desired_state <> 'terminated'
                """).run()
        }
    }

    /// Deletes everything of the user's except the vault row, which stays as a terminated tombstone (so the same
    /// user is not provisioned again by a retried finalize and keeps answering `vault_terminated`).
    func terminate(_ user: String, now: Date) async throws(WireError) {
        try await db.transaction { tx in
            try await tx.run { sql in
                for table in ["vt_records", "vt_events", "vt_sessions", "vt_app_credentials", "vt_connections", "vt_messages"] {
                    try await sql.delete(from: table).where("user_guid", .equal, user).run()
                }
                try await sql.raw("""
                    UPDATE vt_vaults SET desired_state = 'terminated', state = 'terminated', progress = 100,
                      lease_holder = NULL, lease_expires = 0, identity_sealed = '', data_key_sealed = '',
                      updated_at = \(bind: now.timeIntervalSince1970)
                    WHERE id = \(bind: user)
                    """).run()
            }
        }
    }

    // MARK: leases

    /// Takes up to `limit` running vaults nobody holds (or whose lease ran out): one UPDATE whose conditions are
    /// checked again on the row it changes, so of two hosts racing for a vault one gets it.
    func acquireLeases(host: String, now: Date, ttl: TimeInterval, limit: Int) async throws(WireError) -> [String] {
        let time = now.timeIntervalSince1970
        return try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_vaults SET lease_holder = \(bind: host), lease_expires = \(bind: time + ttl)
                WHERE desired_state = 'running' AND (lease_holder IS NULL OR lease_expires < \(bind: time))
                  AND id IN (SELECT id FROM vt_vaults WHERE desired_state = 'running'
                    AND (lease_holder IS NULL OR lease_expires < \(bind: time)) ORDER BY lease_expires LIMIT \(bind: limit))
                RETURNING id
                """).all(decoding: IDRow.self).map(\.id)
        }
    }

    /// Extends every lease `host` still holds on a vault that should run; the answer is the vaults it may serve.
    func renewLeases(host: String, now: Date, ttl: TimeInterval) async throws(WireError) -> [String] {
        let time = now.timeIntervalSince1970
        return try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_vaults SET lease_expires = \(bind: time + ttl)
                WHERE lease_holder = \(bind: host) AND desired_state = 'running' AND lease_expires >= \(bind: time)
                RETURNING id
                """).all(decoding: IDRow.self).map(\.id)
        }
    }

    /// Gives a vault up (stopped, or the host shuts down), recording the state it leaves it in.
    func releaseLease(_ user: String, host: String, state: String, now: Date) async throws(WireError) {
        try await db.run { sql in
            try await sql.raw("""
                UPDATE vt_vaults SET lease_holder = NULL, lease_expires = 0, state = \(bind: state), updated_at = \(bind: now.timeIntervalSince1970)
                WHERE id = \(bind: user) AND lease_holder = \(bind: host) AND desired_state <> 'terminated'
                """).run()
        }
    }

    /// Vaults whose lease `host` holds but that should no longer run.
    func leasesToRelease(host: String) async throws(WireError) -> [String] {
        try await db.run { sql in
            try await sql.select().column("id").from("vt_vaults").where("lease_holder", .equal, host)
                .where("desired_state", .notEqual, "running").all(decoding: IDRow.self).map(\.id)
        }
    }
}
