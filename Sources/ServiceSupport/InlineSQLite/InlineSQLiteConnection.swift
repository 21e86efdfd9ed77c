import NIOConcurrencyHelpers
import NIOCore
import SQLiteNIO
// The SQLite engine Fluent's driver links, under its prefixed names: one copy of SQLite per process, so its
// inode lock table covers every connection to a file (https://sqlite.org/howtocorrupt.html §2.2.1).
import VaporCSQLite

/// One SQLite connection whose statements run on the calling thread, without a hand-off to a thread pool. Its
/// lease (`InlineSQLite`) gives it to one task at a time; the lock keeps it whole even if that task's child tasks
/// share it, which is what makes it `Sendable`.
final class InlineSQLiteConnection: @unchecked Sendable {
    private let lock = NIOLock()
    private var handle: OpaquePointer?
    /// Prepared statements by their SQL text, reset and reused: a service runs the same few statements all day.
    private var statements: [String: OpaquePointer] = [:]
    static let statementCacheLimit = 128

    init(path: String) throws(InlineSQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            if let handle { sqlite_nio_sqlite3_close_v2(handle) }
            throw InlineSQLiteError(code: code, message: "opening the database failed")
        }
        self.handle = handle
        sqlite_nio_sqlite3_extended_result_codes(handle, 1)
        // No busy handler: a locked database answers SQLITE_BUSY at once and `InlineSQLite` waits by suspending its
        // task. Waiting inside SQLite would block the thread, and the lock's holder may need that very thread.
        sqlite_nio_sqlite3_busy_timeout(handle, 0)
    }

    deinit { close() }

    func close() {
        lock.lock()
        defer { lock.unlock() }
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement) }
        statements.removeAll()
        if let handle { sqlite_nio_sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one statement with its binds and hands each result row to `onRow`.
    func execute(_ sql: String, _ binds: [SQLiteData], _ onRow: (InlineSQLiteRow) -> Void) throws(InlineSQLiteError) {
        lock.lock()
        defer { lock.unlock() }
        let statement = try prepared(sql)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        try bind(binds, to: statement)
        var columns: InlineSQLiteRow.Columns?
        while true {
            let code = sqlite_nio_sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(code) }
            let names = columns ?? InlineSQLiteRow.Columns(statement: statement)
            columns = names
            onRow(InlineSQLiteRow(columns: names, values: (0..<Int32(names.names.count)).map { value(statement, $0) }))
        }
    }

    /// Whether the statement only reads (`sqlite3_stmt_readonly`): such statements may run on a reader connection.
    func isReadOnly(_ sql: String) throws(InlineSQLiteError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return sqlite_nio_sqlite3_stmt_readonly(try prepared(sql)) != 0
    }

    private func prepared(_ sql: String) throws(InlineSQLiteError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        guard let handle else { throw InlineSQLiteError(code: SQLITE_MISUSE, message: "the connection is closed") }
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            let result = sqlite_nio_sqlite3_prepare_v3(
                handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            // SQLite prepares the first statement only; more after it would be dropped without a word.
            if let tail, tail.pointee != 0, !String(cString: tail).allSatisfy(\.isWhitespace) { return SQLITE_MISUSE }
            return result
        }
        guard code == SQLITE_OK, let statement else {
            if let statement { sqlite_nio_sqlite3_finalize(statement) }
            if code == SQLITE_MISUSE { throw InlineSQLiteError(code: code, message: "one statement at a time") }
            throw error(code)
        }
        if statements.count >= Self.statementCacheLimit, let (oldest, evicted) = statements.first {
            statements[oldest] = nil
            sqlite_nio_sqlite3_finalize(evicted)
        }
        statements[sql] = statement
        return statement
    }

    private func bind(_ binds: [SQLiteData], to statement: OpaquePointer) throws(InlineSQLiteError) {
        for (offset, data) in binds.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch data {
            case .integer(let value): code = sqlite_nio_sqlite3_bind_int64(statement, index, Int64(value))
            case .float(let value): code = sqlite_nio_sqlite3_bind_double(statement, index, value)
            case .text(let value):
                code = sqlite_nio_sqlite3_bind_text64(
                    statement, index, value, UInt64(value.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
            case .blob(let buffer):
                code = buffer.withUnsafeReadableBytes { bytes in
                    sqlite_nio_sqlite3_bind_blob64(statement, index, bytes.baseAddress, UInt64(bytes.count), Self.transient)
                }
            case .null: code = sqlite_nio_sqlite3_bind_null(statement, index)
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(SQLiteInt64(sqlite_nio_sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite_nio_sqlite3_column_blob(statement, column) else {
                return .blob(ByteBuffer())
            }
            return .blob(ByteBuffer(bytes: UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    private func error(_ code: Int32) -> InlineSQLiteError {
        let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error"
        return InlineSQLiteError(code: code, message: message)
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A failure of the SQLite engine: its (extended) result code and message. `ServiceSQL` answers every one as
/// `503 temporarily_unavailable` and never shows the message to a client.
public struct InlineSQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's extended result code.
    public let code: Int32
    /// `sqlite3_errmsg` of the connection (may name tables and columns; never shown to a client).
    public let message: String
    /// The code and the message, for the operator's log.
    public var description: String { "SQLite \(code): \(message)" }
    /// SQLITE_BUSY or SQLITE_LOCKED (any extended variant): another connection holds the lock; trying again later
    /// may succeed, and the statement had no effect.
    var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
}
