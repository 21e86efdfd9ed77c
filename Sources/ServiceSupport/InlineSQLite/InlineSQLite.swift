import Foundation
import Logging
import NIOCore
import SQLKit
import SQLiteNIO

/// A service's SQLite file reached without thread hand-offs (issue 29, "one database hop per request").
///
/// Fluent's driver runs every statement on NIO's thread pool and resumes the caller on an event loop: two
/// hand-offs per statement, 35–120 µs, against a few µs of SQLite's own work. Here a request leases a connection
/// (at once when it is free) and its statements run on the request's own thread. Writes and transactions go
/// through the one writer connection, leased for the whole transaction (`BEGIN IMMEDIATE` … `COMMIT`), so
/// writers queue in the pool, not in SQLite's busy handler; statements that only read (`sqlite3_stmt_readonly`)
/// outside a transaction run on reader connections beside it, which WAL allows.
public final class InlineSQLite: Sendable {
    private let writer: LeasePool<InlineSQLiteConnection>
    private let readers: LeasePool<InlineSQLiteConnection>
    private let connections: [InlineSQLiteConnection]
    /// The file.
    public let path: String
    let eventLoop: any EventLoop
    let logger: Logger

    /// The writer connection the current task holds in a transaction: statements and nested transactions of
    /// that task run on it.
    @TaskLocal private static var held: Held?

    private struct Held: Sendable {
        let owner: ObjectIdentifier
        let connection: InlineSQLiteConnection
    }

    /// Opens the file (WAL, `synchronous=NORMAL`, as `ServiceDatabase.tune` sets for Fluent's connections).
    public init(path: String, readers: Int = 2, eventLoop: any EventLoop, logger: Logger) throws(InlineSQLiteError) {
        let writer = try InlineSQLiteConnection(path: path)
        try Self.waitingForLocksAtOpen { () throws(InlineSQLiteError) in try writer.execute("PRAGMA journal_mode=WAL", [], { _ in }) }
        try writer.execute("PRAGMA synchronous=NORMAL", [], { _ in })
        var readerConnections: [InlineSQLiteConnection] = []
        for _ in 0..<max(1, readers) { readerConnections.append(try InlineSQLiteConnection(path: path)) }
        self.writer = LeasePool([writer])
        self.readers = LeasePool(readerConnections)
        self.connections = [writer] + readerConnections
        self.path = path
        self.eventLoop = eventLoop
        self.logger = logger
    }

    /// The database as SQLKit sees it; inside `transaction` it is that transaction.
    public var sql: any SQLDatabase { InlineSQLiteDatabase(inline: self, connection: nil) }

    /// `body` in one transaction on the writer connection: committed when it returns, rolled back when it throws.
    /// A transaction begun inside `body` joins this one.
    public func transaction<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        if let connection = heldConnection { return try await body(InlineSQLiteDatabase(inline: self, connection: connection)) }
        let connection = await writer.lease()
        defer { writer.release(connection) }
        try await Self.waitingForLocks { try connection.execute("BEGIN IMMEDIATE", [], { _ in }) }
        do {
            let result = try await Self.$held.withValue(Held(owner: ObjectIdentifier(self), connection: connection)) {
                try await body(InlineSQLiteDatabase(inline: self, connection: connection))
            }
            try connection.execute("COMMIT", [], { _ in })
            return result
        } catch {
            try? connection.execute("ROLLBACK", [], { _ in })
            throw error
        }
    }

    /// Runs one statement: in the current task's transaction if it has one; else on a reader when it only reads,
    /// on the writer (autocommit) when it writes.
    func execute(_ sql: String, _ binds: [SQLiteData], _ onRow: (InlineSQLiteRow) -> Void) async throws {
        // Rows are handed on only once the statement ran to its end, so a try that met a lock delivered none.
        var rows: [InlineSQLiteRow] = []
        try await run(sql, binds) { rows.append($0) }
        rows.forEach(onRow)
    }

    private func run(_ sql: String, _ binds: [SQLiteData], _ onRow: (InlineSQLiteRow) -> Void) async throws {
        if let connection = heldConnection {
            return try await Self.waitingForLocks { try connection.execute(sql, binds, onRow) }
        }
        let reader = await readers.lease()
        let readOnly: Bool
        do {
            readOnly = try reader.isReadOnly(sql)
        } catch {
            readers.release(reader)
            throw error
        }
        if readOnly {
            defer { readers.release(reader) }
            return try await Self.waitingForLocks { try reader.execute(sql, binds, onRow) }
        }
        readers.release(reader)
        let connection = await writer.lease()
        defer { writer.release(connection) }
        try await Self.waitingForLocks { try connection.execute(sql, binds, onRow) }
    }

    /// `waitingForLocks` for the start-up, which has no task to suspend: the thread sleeps (once per process start).
    private static func waitingForLocksAtOpen(_ statement: () throws(InlineSQLiteError) -> Void) throws(InlineSQLiteError) {
        let deadline = ContinuousClock.now + lockWait
        while true {
            do {
                return try statement()
            } catch where error.isBusy && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// How long a statement waits for a lock another connection holds (another process's writer, a `migrate`
    /// run, Fluent's connections at start-up) before it fails.
    static let lockWait: Duration = .seconds(10)

    /// Runs `statement`, and while SQLite answers that another connection holds the lock, tries again after a
    /// pause that suspends the task (1 ms, doubling to 32 ms) until `lockWait` has passed.
    private static func waitingForLocks(_ statement: () throws -> Void) async throws {
        let deadline = ContinuousClock.now + lockWait
        var pause = Duration.milliseconds(1)
        while true {
            do {
                return try statement()
            } catch let error as InlineSQLiteError where error.isBusy && ContinuousClock.now < deadline {
                try await Task.sleep(for: pause)
                pause = min(pause * 2, .milliseconds(32))
            }
        }
    }

    /// `body` with the writer connection to itself (SQLKit's `withSession`).
    func session<T>(_ body: (InlineSQLiteConnection) async throws -> T) async throws -> T {
        if let connection = heldConnection { return try await body(connection) }
        let connection = await writer.lease()
        defer { writer.release(connection) }
        return try await Self.$held.withValue(Held(owner: ObjectIdentifier(self), connection: connection)) {
            try await body(connection)
        }
    }

    /// Closes every connection (at shut-down, after the server stopped taking requests); a statement running on one
    /// finishes first. Statements after this fail, as they would with the file gone.
    public func close() {
        for connection in connections { connection.close() }
    }

    private var heldConnection: InlineSQLiteConnection? {
        guard let held = Self.held, held.owner == ObjectIdentifier(self) else { return nil }
        return held.connection
    }
}
