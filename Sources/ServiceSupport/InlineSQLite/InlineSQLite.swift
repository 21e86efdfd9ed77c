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
        try writer.execute("PRAGMA journal_mode=WAL", [], { _ in })
        try writer.execute("PRAGMA synchronous=NORMAL", [], { _ in })
        var readerConnections: [InlineSQLiteConnection] = []
        for _ in 0..<max(1, readers) { readerConnections.append(try InlineSQLiteConnection(path: path)) }
        self.writer = LeasePool([writer])
        self.readers = LeasePool(readerConnections)
        self.connections = [writer] + readerConnections
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
        try connection.execute("BEGIN IMMEDIATE", [], { _ in })
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
        if let connection = heldConnection { return try connection.execute(sql, binds, onRow) }
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
            return try reader.execute(sql, binds, onRow)
        }
        readers.release(reader)
        let connection = await writer.lease()
        defer { writer.release(connection) }
        try connection.execute(sql, binds, onRow)
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
