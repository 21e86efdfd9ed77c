import Logging
import NIOCore
import SQLKit
import SQLiteKit

/// SQLKit's view of `InlineSQLite`, so the stores' queries run unchanged on either SQLite path. Queries are never
/// logged: their binds carry nonces, tokens and keys.
struct InlineSQLiteDatabase: SQLDatabase {
    let inline: InlineSQLite
    /// Set when the statements belong to a transaction or session on this connection.
    let connection: InlineSQLiteConnection?

    var logger: Logger { inline.logger }
    var eventLoop: any EventLoop { inline.eventLoop }
    var dialect: any SQLDialect { SQLiteDialect() }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let (sql, rawBinds) = serialize(query)
        let encoder = SQLiteDataEncoder()
        let binds = try rawBinds.map { try encoder.encode($0) }
        if let connection {
            try connection.execute(sql, binds) { onRow($0) }
        } else {
            try await inline.execute(sql, binds) { onRow($0) }
        }
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if connection != nil { return try await closure(self) }
        return try await inline.session { connection in
            try await closure(InlineSQLiteDatabase(inline: inline, connection: connection))
        }
    }
}
