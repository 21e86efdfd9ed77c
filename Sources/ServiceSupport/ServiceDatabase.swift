import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import SQLKit
import Vapor

/// Where a service keeps its rows (ARCHITECTURE decision 7): an SQLite file by default, PostgreSQL to scale out
/// (several stateless instances on one database).
public enum ServiceDatabase: Sendable, Equatable {
    case sqlite(path: String)
    case sqliteInMemory
    /// `postgres://user:password@host:port/database`.
    case postgres(url: String)

    public struct InvalidURL: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// `sqlite://PATH`, `sqlite::memory:`, `postgres://…` / `postgresql://…`, or a bare file path.
    public init(url: String) throws(InvalidURL) {
        if url == "sqlite::memory:" {
            self = .sqliteInMemory
        } else if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(url: url)
        } else if url.hasPrefix("sqlite://") {
            let path = String(url.dropFirst("sqlite://".count))
            guard !path.isEmpty else { throw InvalidURL(description: "sqlite:// needs a file path") }
            self = .sqlite(path: path)
        } else if url.contains("://") {
            throw InvalidURL(description: "unsupported database URL scheme (use sqlite:// or postgres://)")
        } else {
            self = .sqlite(path: url)
        }
    }

    public var isSQLite: Bool {
        if case .postgres = self { return false }
        return true
    }

    /// Registers the database with the application.
    public func configure(_ app: Application) throws(InvalidURL) {
        switch self {
        case .sqlite(let path):
            app.databases.use(.sqlite(.file(path)), as: .sqlite)
        case .sqliteInMemory:
            app.databases.use(.sqlite(.memory), as: .sqlite)
        case .postgres(let url):
            guard let configuration = try? SQLPostgresConfiguration(url: url) else {
                throw InvalidURL(description: "the PostgreSQL URL is not valid")
            }
            app.databases.use(.postgres(configuration: configuration), as: .psql)
        }
    }

    /// SQLite only: write-ahead logging (persistent in the file) and `synchronous=NORMAL` on every pooled
    /// connection (one per event loop). In WAL mode NORMAL loses nothing a committed transaction wrote when the
    /// process is killed (the WAL is in the OS's hands at commit); only a power loss can cost the last commits.
    /// A file also gets its `InlineSQLite` (`app.inlineSQLite`), which `ServiceSQL(app)` uses from then on.
    public func tune(_ app: Application) async throws {
        guard isSQLite else { return }
        if case .sqlite(let path) = self, app.inlineSQLite == nil {
            let inline = try InlineSQLite(path: path, eventLoop: app.eventLoopGroup.any(), logger: app.logger)
            app.inlineSQLite = inline
            app.lifecycle.use(InlineSQLiteLifecycle(inline: inline))
        }
        for loop in app.eventLoopGroup.makeIterator() {
            guard let sql = app.databases.database(logger: app.logger, on: loop) as? any SQLDatabase else { continue }
            try await sql.raw("PRAGMA journal_mode=WAL").run()
            try await sql.raw("PRAGMA synchronous=NORMAL").run()
        }
    }
}
