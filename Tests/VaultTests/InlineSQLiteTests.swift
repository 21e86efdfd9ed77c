import Fluent
import Foundation
import SQLKit
import ServiceSupport
import Testing
import Vapor

/// `InlineSQLite`, the SQLite path every service's `ServiceSQL(app)` takes on a file: statements on the caller's
/// thread, one writer lease per transaction, reads beside it.
@Suite(.serialized)
struct InlineSQLiteTests {
    struct Counter: Decodable { let n: Int }
    struct Boom: Error {}

    @Test func aFileDatabaseGetsTheInlinePathAndShutDownClosesIt() async throws {
        try await withDatabase { app in
            #expect(app.inlineSQLite != nil)
            try await ServiceSQL(app).run { try await $0.raw("UPDATE counter SET n = 3 WHERE id = 1").run() }
            // Fluent's own connections read what the inline writer committed: one file, one SQLite.
            #expect(try await fluentCount(app) == 3)
        }
    }

    @Test func readThenWriteTransactionsFromManyTasksAllCommit() async throws {
        try await withDatabase { app in
            let sql = ServiceSQL(app)
            let total = 40
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<total {
                    group.addTask {
                        try await sql.transaction { tx in
                            let n = try await tx.run { try await $0.raw("SELECT n FROM counter WHERE id = 1").first(decoding: Counter.self)?.n } ?? -1
                            try await Task.sleep(for: .milliseconds(1))
                            try await tx.run { try await $0.raw("UPDATE counter SET n = \(bind: n + 1) WHERE id = 1").run() }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await count(sql) == total)
        }
    }

    @Test func aNestedTransactionJoinsTheOuterOneAndAnErrorRollsBackBoth() async throws {
        try await withDatabase { app in
            let sql = ServiceSQL(app)
            await #expect(throws: Boom.self) {
                try await sql.transaction(rollback: Boom.self) { tx in
                    try await tx.run { try await $0.raw("UPDATE counter SET n = 5 WHERE id = 1").run() }
                    try await tx.transaction { inner in try await inner.run { try await $0.raw("UPDATE counter SET n = n + 1 WHERE id = 1").run() } }
                    // A statement through the outer ServiceSQL inside the transaction is part of it, not a deadlock.
                    try await sql.run { try await $0.raw("UPDATE counter SET n = n + 10 WHERE id = 1").run() }
                    let inside = try await count(sql)
                    #expect(inside == 16)
                    throw Boom()
                }
            }
            let after = try await count(sql)
            #expect(after == 0)
        }
    }

    /// A reader outside the transaction is not held up by it and sees the last committed value (WAL).
    @Test func aReadDuringAnOpenTransactionSeesTheCommittedValue() async throws {
        try await withDatabase { app in
            let sql = ServiceSQL(app)
            let (opened, signalOpened) = AsyncStream<Void>.makeStream()
            let (release, signalRelease) = AsyncStream<Void>.makeStream()
            async let writer: Void = sql.transaction { tx in
                try await tx.run { try await $0.raw("UPDATE counter SET n = 42 WHERE id = 1").run() }
                signalOpened.yield()
                for await _ in release { break }
            }
            for await _ in opened { break }
            #expect(try await count(sql) == 0)
            // A write from another task waits for the writer's lease instead of failing with "database is locked".
            async let laterWrite: Void = sql.run { try await $0.raw("UPDATE counter SET n = n + 1 WHERE id = 1").run() }
            signalRelease.yield()
            try await writer
            try await laterWrite
            #expect(try await count(sql) == 43)
        }
    }

    /// Two `InlineSQLite`s on one file in one process (two services, or a service and a tool): one holds a
    /// transaction open across an await while many writes of the other wait for it. Waiting suspends their tasks; it
    /// never blocks a thread, or the holder could not be resumed to commit (there are as few threads as cores).
    @Test func writersOfAnotherConnectionWaitWithoutBlockingTheHolder() async throws {
        try await withDatabase { app in
            let path = try #require(app.inlineSQLite?.path)
            let other = try InlineSQLite(path: path, eventLoop: app.eventLoopGroup.any(), logger: app.logger)
            defer { other.close() }
            let holder = ServiceSQL(app)
            let waiting = ServiceSQL(inline: other)
            let (opened, signalOpened) = AsyncStream<Void>.makeStream()
            async let held: Void = holder.transaction { tx in
                try await tx.run { try await $0.raw("UPDATE counter SET n = 100 WHERE id = 1").run() }
                signalOpened.yield()
                // Give the other writers time to pile up against the lock, then commit.
                try await Task.sleep(for: .milliseconds(200))
            }
            for await _ in opened { break }
            let writers = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 {
                        group.addTask { try await waiting.run { try await $0.raw("UPDATE counter SET n = n + 1 WHERE id = 1").run() } }
                    }
                    try await group.waitForAll()
                }
            }
            try await held
            try await writers.value
            #expect(try await count(holder) == 108)
        }
    }

    @Test func valuesRoundTripAndRowsAreReadByColumnName() async throws {
        try await withDatabase { app in
            let sql = ServiceSQL(app)
            let blob = Data([0, 1, 2, 255])
            let row = try await sql.run { db in
                try await db.raw("""
                    INSERT INTO kinds (t, b, i, d, z, f) VALUES (\(bind: "naïve ✓"), \(bind: blob), \(bind: Int64.max), \(bind: 2.5), \(bind: String?.none), \(bind: true))
                    RETURNING id, t, b, i, d, z, f
                    """).first()
            }
            let inserted = try #require(row)
            #expect(try inserted.decode(column: "t", as: String.self) == "naïve ✓")
            #expect(try inserted.decode(column: "b", as: Data.self) == blob)
            #expect(try inserted.decode(column: "i", as: Int64.self) == Int64.max)
            #expect(try inserted.decode(column: "d", as: Double.self) == 2.5)
            #expect(try inserted.decodeNil(column: "z"))
            #expect(try inserted.decode(column: "z", as: String?.self) == nil)
            #expect(try inserted.decode(column: "f", as: Bool.self))
            #expect(inserted.allColumns == ["id", "t", "b", "i", "d", "z", "f"])
            #expect(throws: DecodingError.self) { try inserted.decode(column: "missing", as: String.self) }
            let empty = try await sql.run { try await $0.raw("SELECT t FROM kinds WHERE id = -1").all() }
            #expect(empty.isEmpty)
        }
    }

    /// The engine's failures (here: a constraint, a syntax error, two statements in one string) reach the client
    /// as 503 `temporarily_unavailable` without SQLite's message.
    @Test func engineFailuresBecomeTemporarilyUnavailable() async throws {
        try await withDatabase { app in
            let sql = ServiceSQL(app)
            for statement in [
                "INSERT INTO counter (id, n) VALUES (1, 0)", "SELEC n FROM counter",
                "UPDATE counter SET n = 1; UPDATE counter SET n = 2",
            ] {
                do throws(WireError) {
                    try await sql.run { try await $0.raw(SQLQueryString(statement)).run() }
                    Issue.record("\(statement) succeeded")
                } catch {
                    #expect(error.status == .serviceUnavailable && error.code == "temporarily_unavailable")
                    #expect(!error.description.contains("SQLite") && !error.description.contains("syntax"))
                }
            }
            #expect(try await count(sql) == 0)
            // The connections are still usable after the failures.
            try await sql.transaction { tx in try await tx.run { try await $0.raw("UPDATE counter SET n = 9 WHERE id = 1").run() } }
            #expect(try await count(sql) == 9)
        }
    }

    private func count(_ sql: ServiceSQL) async throws -> Int? {
        try await sql.run { try await $0.raw("SELECT n FROM counter WHERE id = 1").first(decoding: Counter.self)?.n }
    }

    private func fluentCount(_ app: Application) async throws -> Int? {
        try await (app.db as? any SQLDatabase)?.raw("SELECT n FROM counter WHERE id = 1").first(decoding: Counter.self)?.n
    }

    private func withDatabase(_ body: (Application) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-inline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = try await ServiceApplication.prepare(
            name: "inline-test", database: .sqlite(path: directory.appendingPathComponent("t.sqlite").path), migrations: [])
        do {
            let sql = ServiceSQL(app)
            try await sql.run { db in
                try await db.raw("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)").run()
                try await db.raw("INSERT INTO counter (id, n) VALUES (1, 0)").run()
                try await db.raw("CREATE TABLE kinds (id INTEGER PRIMARY KEY, t TEXT, b BLOB, i INTEGER, d REAL, z TEXT, f BOOLEAN)").run()
            }
            try await body(app)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}
