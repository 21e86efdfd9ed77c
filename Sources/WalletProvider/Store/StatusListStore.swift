import Foundation
import SQLKit
import ServiceSupport
import TesseraCore

/// What an index was allocated for.
enum StatusPurpose: String, Sendable {
    /// The instance's Wallet Instance Attestation index (1.5 `client_status`): one per instance, reused.
    case walletInstance = "wia"
    /// One Key Attestation's index (1.3 `status`, 1.5 `key_storage_status`): a fresh one per attestation.
    case keyAttestation = "ka"
}

/// An attestation's place in a Token Status List and until when the provider keeps it maintained.
struct StatusAllocation: Sendable, Equatable {
    let listID: String
    let index: Int
    let maintainedUntil: Date
}

/// Token Status List rows: index allocation, flips, and the lists' cached tokens. Used inside the issuing or
/// revoking request's transaction (built on that transaction's `ServiceSQL`).
///
/// Allocation (TSL §12.2, §13.2: random indices, never the same one twice): a random index of the oldest list that
/// still takes entries is inserted with `ON CONFLICT DO NOTHING`; after `probes` taken indices in a row (the list is
/// then about 90 % full) the list stops taking entries and a new one is created. The unique (list, index) key, not
/// a prior read, rules out a double allocation, on SQLite and across PostgreSQL instances alike.
struct StatusListStore: Sendable {
    let db: ProviderSQL
    let random: any RandomSource
    let capacity: Int

    static let probes = 32
    static let bits = 1

    /// The instance's WIA entry: the one it has, kept maintained until at least `until`, or a new one.
    func walletInstanceEntry(instanceID: String, until: Date, now: Date) async throws(WireError) -> StatusAllocation {
        if let existing = try await extendWalletInstanceEntry(instanceID: instanceID, until: until) { return existing }
        return try await allocate(instanceID: instanceID, purpose: .walletInstance, until: until, now: now)
    }

    /// One statement (every WIA under a real clock moves the horizon, so a read then a write would be two round trips):
    /// maintained_until becomes the later of its value and `until`, and the entry comes back with it.
    private func extendWalletInstanceEntry(instanceID: String, until: Date) async throws(WireError) -> StatusAllocation? {
        struct Row: Decodable { let list_id: String; let idx: Int; let maintained_until: Double }
        let until = until.timeIntervalSince1970
        return try await db.run { sql in
            let later: SQLQueryString = "CASE WHEN maintained_until < \(bind: until) THEN \(bind: until) ELSE maintained_until END"
            guard let row = try await sql.update("wp_status_entries").set("maintained_until", to: later)
                .where("instance_id", .equal, instanceID).where("purpose", .equal, StatusPurpose.walletInstance.rawValue)
                .returning("list_id", "idx", "maintained_until").first(decoding: Row.self)
            else { return nil }
            return StatusAllocation(listID: row.list_id, index: row.idx, maintainedUntil: Date(timeIntervalSince1970: row.maintained_until))
        }
    }

    /// A new VALID entry at a random free index.
    func allocate(instanceID: String, purpose: StatusPurpose, until: Date, now: Date) async throws(WireError) -> StatusAllocation {
        // A list rarely closes; two attempts cover a close racing a concurrent one.
        for _ in 0..<3 {
            let list = try await acceptingList(now: now)
            for _ in 0..<Self.probes {
                let index = Int(randomBelow(UInt64(list.capacity)))
                let inserted = try await db.run { sql in
                    try await sql.insert(into: "wp_status_entries")
                        .columns("list_id", "idx", "instance_id", "purpose", "status", "maintained_until", "created_at")
                        .values(SQLBind(list.id), SQLBind(index), SQLBind(instanceID), SQLBind(purpose.rawValue), SQLBind(0),
                            SQLBind(until.timeIntervalSince1970), SQLBind(now.timeIntervalSince1970))
                        .ignoringConflicts()
                        .returning("idx").first() != nil
                }
                if inserted { return StatusAllocation(listID: list.id, index: index, maintainedUntil: until) }
            }
            try await db.run { sql in
                try await sql.update("wp_status_lists").set("accepting", to: SQLBind(false)).where("id", .equal, list.id).run()
            }
        }
        throw WireError.server
    }

    /// The oldest list that takes entries, or a new one.
    private func acceptingList(now: Date) async throws(WireError) -> (id: String, capacity: Int) {
        struct Row: Decodable { let id: String; let capacity: Int }
        let id = Base64URL.encode(random.bytes(12))
        let capacity = capacity
        return try await db.run { sql in
            if let row = try await sql.select().columns("id", "capacity").from("wp_status_lists")
                .where("accepting", .equal, SQLBind(true)).orderBy("created_at").orderBy("id").limit(1)
                .first(decoding: Row.self)
            {
                return (row.id, row.capacity)
            }
            try await sql.insert(into: "wp_status_lists")
                .columns("id", "bits", "capacity", "accepting", "version", "created_at", "token_version", "token_issued_at")
                .values(SQLBind(id), SQLBind(Self.bits), SQLBind(capacity), SQLBind(true), SQLBind(Int64(1)),
                    SQLBind(now.timeIntervalSince1970), SQLBind(Int64(0)), SQLBind(0.0))
                .run()
            return (id, capacity)
        }
    }

    /// Uniform in 0..<bound (rejection sampling over 64 random bits).
    private func randomBelow(_ bound: UInt64) -> UInt64 {
        let limit = UInt64.max - UInt64.max % bound
        while true {
            let value = random.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if value < limit { return value % bound }
        }
    }

    /// Every VALID entry of `instanceIDs` becomes INVALID, and each list that changed gets a new version (in the
    /// caller's transaction, so the flip and the revocation commit together). Lists are bumped in id order, so two
    /// revocations never wait on each other's lists in a cycle.
    static func invalidate(instanceIDs: [String], on db: ProviderSQL) async throws(WireError) {
        guard !instanceIDs.isEmpty else { return }
        struct Row: Decodable { let list_id: String }
        try await db.run { sql in
            let flipped = try await sql.update("wp_status_entries").set("status", to: SQLBind(1))
                .where("instance_id", .in, instanceIDs).where("status", .equal, SQLBind(0))
                .returning("list_id").all(decoding: Row.self)
            for list in Set(flipped.map(\.list_id)).sorted() {
                try await sql.update("wp_status_lists").set("version", to: SQLRaw("version + 1")).where("id", .equal, list).run()
            }
        }
    }
}
