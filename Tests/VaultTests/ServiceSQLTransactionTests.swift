import Fluent
import Foundation
import SQLKit
import ServiceSupport
import Testing
import Vapor

/// `ServiceSQL.transaction` on an SQLite file with several connections (one per event loop), as every service runs.
@Suite(.serialized)
struct ServiceSQLTransactionTests {
    struct Counter: Decodable { let n: Int }
    struct Boom: Error {}

    /// Each transaction reads, then writes. With a deferred `BEGIN`, two of them that both read first deadlock on
    /// the upgrade and SQLite fails one at once ("database is locked"); `BEGIN IMMEDIATE` makes them wait their turn.
    @Test func readThenWriteTransactionsOnSeveralConnectionsAllCommit() async throws {
        try await withDatabase { app in
            let databases = app.eventLoopGroup.makeIterator().compactMap { app.databases.database(logger: app.logger, on: $0) }
            try #require(!databases.isEmpty)
            let total = 24
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<total {
                    let db = databases[index % databases.count]
                    group.addTask {
                        try await ServiceSQL(database: db).transaction { tx in
                            let n = try await tx.run { sql in try await sql.raw("SELECT n FROM counter WHERE id = 1").first(decoding: Counter.self)?.n } ?? -1
                            try await Task.sleep(for: .milliseconds(2))
                            try await tx.run { sql in try await sql.raw("UPDATE counter SET n = \(bind: n + 1) WHERE id = 1").run() }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await count(app) == total)
        }
    }

    @Test func aNestedTransactionJoinsTheOuterOneAndAnErrorRollsBackBoth() async throws {
        try await withDatabase { app in
            let sql = ServiceSQL(database: app.db)
            await #expect(throws: Boom.self) {
                try await sql.transaction(rollback: Boom.self) { tx in
                    try await tx.run { try await $0.raw("UPDATE counter SET n = 5 WHERE id = 1").run() }
                    try await tx.transaction { inner in try await inner.run { try await $0.raw("UPDATE counter SET n = n + 1 WHERE id = 1").run() } }
                    throw Boom()
                }
            }
            #expect(try await count(app) == 0)
            try await sql.transaction { tx in
                try await tx.transaction { inner in try await inner.run { try await $0.raw("UPDATE counter SET n = 7 WHERE id = 1").run() } }
            }
            #expect(try await count(app) == 7)
        }
    }

    private func count(_ app: Application) async throws -> Int? {
        try await (app.db as? any SQLDatabase)?.raw("SELECT n FROM counter WHERE id = 1").first(decoding: Counter.self)?.n
    }

    private func withDatabase(_ body: (Application) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-sql-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try await ServiceApplication.prepare(
            name: "sql-test", database: .sqlite(path: directory.appendingPathComponent("t.sqlite").path), migrations: [])
        do {
            let sql = try #require(app.db as? any SQLDatabase)
            try await sql.raw("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)").run()
            try await sql.raw("INSERT INTO counter (id, n) VALUES (1, 0)").run()
            try await body(app)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}
