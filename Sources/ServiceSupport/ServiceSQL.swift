import Fluent
import Foundation
import SQLKit

/// SQL access shared by a service's stores: every failure of the database becomes `503 temporarily_unavailable`
/// (RFC 6749 §5.2) without its details; the caller's own rule errors pass through.
public struct ServiceSQL: Sendable {
    public let database: any Database

    public init(database: any Database) { self.database = database }

    public var sql: any SQLDatabase {
        get throws(WireError) {
            guard let sql = database as? any SQLDatabase else { throw .server }
            return sql
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
            return try await database.transaction { db in try await body(ServiceSQL(database: db)) }
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
            return try await database.transaction { db in try await body(ServiceSQL(database: db)) }
        } catch let error as WireError {
            throw error
        } catch let error as Rollback {
            throw error
        } catch {
            throw WireError(.serviceUnavailable, "temporarily_unavailable", "the database is not available")
        }
    }
}
