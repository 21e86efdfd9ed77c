import Foundation
import SQLKit
import ServiceSupport

/// A user's named records in one collection (`secret`, `profile`, `credential`), values sealed under the user's
/// key. Every change takes the next version of the user's counter, and a delete leaves a tombstone, so
/// `changes(since:)` can tell a device everything that happened after the version it has.
struct VaultRecords: Sendable {
    enum Failure: Error, Equatable { case alreadyExists, notFound, versionConflict(current: Int64) }

    struct Record: Sendable, Equatable {
        let name: String
        /// nil for a deleted record (a tombstone).
        let value: Data?
        let version: Int64
        let updatedAt: Date
    }

    let db: ServiceSQL
    let keyring: VaultKeyring
    let collection: String
    /// Only for reads outside a transaction (a write must see its own transaction's rows).
    var cache: VaultRecordCache? = nil

    private var user: String { keyring.user }
    private func rowID(_ name: String) -> String { "\(user)|\(collection)|\(keyring.recordName(collection: collection, name: name))" }

    /// The user's next version (one UPDATE … RETURNING, inside the caller's transaction).
    private func nextVersion() async throws(WireError) -> Int64 {
        let user = self.user
        guard let row = try await db.run({ sql in
            try await sql.raw("UPDATE vt_vaults SET record_version = record_version + 1 WHERE id = \(bind: user) RETURNING record_version")
                .first(decoding: VersionRow.self)
        }) else { throw .server }
        return row.record_version
    }

    func currentVersion() async throws(WireError) -> Int64 {
        let user = self.user
        return try await db.run { sql in
            try await sql.select().column("record_version").from("vt_vaults").where("id", .equal, user).first(decoding: VersionRow.self)
        }?.record_version ?? 0
    }

    /// Adds `name`; refused when a live record of that name exists (a tombstone is overwritten).
    func add(_ name: String, value: Data, now: Date) async throws -> Int64 {
        let version = try await nextVersion()
        let id = rowID(name)
        let nameSealed = try keyring.seal(Data(name.utf8), table: "vt_records.name", row: id)
        let valueSealed = try keyring.seal(value, table: "vt_records", row: id)
        let user = self.user, collection = self.collection
        let inserted = try await db.run { sql in
            try await sql.raw("""
                INSERT INTO vt_records (id, user_guid, collection, name_sealed, value_sealed, version, updated_at)
                VALUES (\(bind: id), \(bind: user), \(bind: collection), \(bind: nameSealed), \(bind: valueSealed), \(bind: version), \(bind: now.timeIntervalSince1970))
                ON CONFLICT (id) DO UPDATE SET value_sealed = excluded.value_sealed, version = excluded.version,
                  updated_at = excluded.updated_at, name_sealed = excluded.name_sealed
                WHERE vt_records.value_sealed IS NULL
                RETURNING id
                """).first(decoding: IDRow.self)
        }
        guard inserted != nil else { throw Failure.alreadyExists }
        return version
    }

    /// Replaces the value of a live record (only at `expectedVersion` when given); creates it when `upsert`.
    func update(_ name: String, value: Data, expectedVersion: Int64?, upsert: Bool = false, now: Date) async throws -> Int64 {
        if upsert, expectedVersion == nil, try await get(name) == nil { return try await add(name, value: value, now: now) }
        let version = try await nextVersion()
        let id = rowID(name)
        let valueSealed = try keyring.seal(value, table: "vt_records", row: id)
        let updated = try await db.run { sql in
            var query = sql.update("vt_records").set("value_sealed", to: valueSealed).set("version", to: version)
                .set("updated_at", to: now.timeIntervalSince1970).where("id", .equal, id).where("value_sealed", .isNot, SQLLiteral.null)
            if let expectedVersion { query = query.where("version", .equal, expectedVersion) }
            return try await query.returning("id").first(decoding: IDRow.self)
        }
        if updated != nil { return version }
        guard let current = try await get(name) else { throw Failure.notFound }
        throw Failure.versionConflict(current: current.version)
    }

    func get(_ name: String) async throws(WireError) -> Record? {
        let id = rowID(name)
        let found: RecordRow?
        if let cache, let cached = cache.lookup(id) {
            found = cached
        } else {
            let generation = cache?.generation
            found = try await db.run { sql in
                try await sql.select().columns("id", "name_sealed", "value_sealed", "version", "updated_at").from("vt_records")
                    .where("id", .equal, id).first(decoding: RecordRow.self)
            }
            if let generation { cache?.store(id, found, readAt: generation) }
        }
        guard let row = found, let sealed = row.value_sealed else { return nil }
        return Record(name: name, value: try keyring.open(sealed, table: "vt_records", row: id), version: row.version,
            updatedAt: Date(timeIntervalSince1970: row.updated_at))
    }

    /// Deletes a live record (leaves a tombstone); false when there was none.
    func delete(_ name: String, now: Date) async throws(WireError) -> Bool {
        guard try await get(name) != nil else { return false }
        let version = try await nextVersion()
        let id = rowID(name)
        try await db.run { sql in
            try await sql.update("vt_records").set("value_sealed", to: SQLLiteral.null).set("version", to: version)
                .set("updated_at", to: now.timeIntervalSince1970).where("id", .equal, id).run()
        }
        return true
    }

    /// Every record changed after `version` (tombstones included), oldest change first; values opened when `values`.
    func changes(since version: Int64, values: Bool = true) async throws(WireError) -> [Record] {
        let user = self.user, collection = self.collection
        let rows = try await db.run { sql in
            try await sql.select().columns("id", "name_sealed", "value_sealed", "version", "updated_at").from("vt_records")
                .where("user_guid", .equal, user).where("collection", .equal, collection).where("version", .greaterThan, version)
                .orderBy("version").all(decoding: RecordRow.self)
        }
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        for row in rows {
            let nameBytes = try keyring.open(row.name_sealed, table: "vt_records.name", row: row.id)
            let value = try values ? row.value_sealed.map { s throws(WireError) in try keyring.open(s, table: "vt_records", row: row.id) } : nil
            records.append(Record(
                name: String(decoding: nameBytes, as: UTF8.self), value: row.value_sealed == nil ? nil : (value ?? Data()),
                version: row.version, updatedAt: Date(timeIntervalSince1970: row.updated_at)))
        }
        return records
    }

    /// Live records, names in order (names are sealed, so sorting happens here, after opening them).
    func live(values: Bool = false) async throws(WireError) -> [Record] {
        try await changes(since: 0, values: values).filter { $0.value != nil }.sorted { $0.name < $1.name }
    }
}
