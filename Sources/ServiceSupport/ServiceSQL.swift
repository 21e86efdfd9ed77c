import Fluent
import Foundation
import SQLKit
import Vapor

/// SQL access shared by a service's stores: every failure of the database becomes `503 temporarily_unavailable`
/// (RFC 6749 §5.2) without its details; the caller's own rule errors pass through.
///
/// Two paths behind one seam: an SQLite file is reached through `InlineSQLite` (a request's statements run on its
/// own thread, one lease per transaction); PostgreSQL and in-memory SQLite through Fluent's database.
public struct ServiceSQL: Sendable {
    private enum Backend: Sendable {
        case fluent(any Database)
        case inline(InlineSQLite)
    }

    private let backend: Backend
    /// Set inside `transaction` on Fluent's SQLite, where this type opens the transaction itself (see `begin`).
    private let inSQLiteTransaction: Bool

    /// Through Fluent's database (PostgreSQL, in-memory SQLite, or a test's own connection).
    public init(database: any Database) {
        self.backend = .fluent(database)
        self.inSQLiteTransaction = false
    }

    /// Through an SQLite file's inline connections.
    public init(inline: InlineSQLite) {
        self.backend = .inline(inline)
        self.inSQLiteTransaction = false
    }

    /// The application's database: its `InlineSQLite` when `ServiceDatabase.configure` opened one, else `app.db`.
    public init(_ app: Application) {
        if let inline = app.inlineSQLite { self.init(inline: inline) } else { self.init(database: app.db) }
    }

    private init(transactionOn database: any Database) {
        self.backend = .fluent(database)
        self.inSQLiteTransaction = true
    }

    public var sql: any SQLDatabase {
        get throws(WireError) {
            switch backend {
            case .inline(let inline): return MeasuredSQLDatabase(inline.sql)
            case .fluent(let database):
                guard let sql = database as? any SQLDatabase else { throw .server }
                return MeasuredSQLDatabase(sql)
            }
        }
    }

    public func run<T>(_ body: (any SQLDatabase) async throws -> T) async throws(WireError) -> T {
        let sql = try self.sql
        do {
            return try await body(sql)
        } catch let error as WireError {
            throw error
        } catch {
            throw WireError(.serviceUnavailable, "temporarily_unavailable", "the database is not available")
        }
    }

    /// One transaction for a request's writes (one commit, one WAL sync); a thrown error rolls all of it back.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (ServiceSQL) async throws -> T) async throws(WireError) -> T {
        do {
            return try await begin(body)
        } catch let error as WireError {
            throw error
        } catch {
            throw WireError(.serviceUnavailable, "temporarily_unavailable", "the database is not available")
        }
    }

    /// Like `transaction`, but `body` may throw `Rollback` to roll back on purpose and hand it to the caller as it
    /// was thrown.
    public func transaction<T: Sendable, Rollback: Error>(
        rollback: Rollback.Type, _ body: @escaping @Sendable (ServiceSQL) async throws -> T
    ) async throws -> T {
        do {
            return try await begin(body)
        } catch let error as WireError {
            throw error
        } catch let error as Rollback {
            throw error
        } catch {
            throw WireError(.serviceUnavailable, "temporarily_unavailable", "the database is not available")
        }
    }

    /// SQLite: `BEGIN IMMEDIATE` takes the write lock up front. Fluent's deferred `BEGIN` starts as a reader and
    /// upgrades at the first write; two such transactions that both read first deadlock, and SQLite fails one at
    /// once with "database is locked" (no busy wait can help). Waiting for the lock at `BEGIN` instead serialises
    /// writers through the busy handler. PostgreSQL keeps Fluent's transaction.
    private func begin<T: Sendable>(_ body: @escaping @Sendable (ServiceSQL) async throws -> T) async throws -> T {
        if inSQLiteTransaction { return try await body(self) }
        let database: any Database
        switch backend {
        case .inline(let inline): return try await inline.transaction { _ in try await body(self) }
        case .fluent(let fluent): database = fluent
        }
        guard let sql = database as? any SQLDatabase, sql.dialect.name == "sqlite" else {
            return try await database.transaction { db in try await body(ServiceSQL(database: db)) }
        }
        return try await database.withConnection { connection in
            guard let sql = connection as? any SQLDatabase else { throw WireError.server }
            try await sql.raw("BEGIN IMMEDIATE").run()
            do {
                let result = try await body(ServiceSQL(transactionOn: connection))
                try await sql.raw("COMMIT").run()
                return result
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
        }
    }
}
