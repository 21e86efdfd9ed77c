import Dispatch
import Logging
import Metrics
import NIOCore
import SQLKit

/// Times every statement a store runs through `ServiceSQL` (`tessera_db_statement_duration_seconds`, by database).
struct MeasuredSQLDatabase: SQLDatabase {
    let base: any SQLDatabase
    let timer: Timer

    init(_ base: any SQLDatabase) {
        self.base = base
        timer = base.dialect.name == "sqlite" ? Self.sqlite : Self.postgresql
    }

    // Made at first use, after `ServiceMetrics.bootstrap()` (ServiceApplication.prepare calls it first).
    private static let sqlite = Timer(
        label: "tessera_db_statement_duration_seconds", dimensions: [("database", "sqlite")], preferredDisplayUnit: .seconds)
    private static let postgresql = Timer(
        label: "tessera_db_statement_duration_seconds", dimensions: [("database", "postgresql")], preferredDisplayUnit: .seconds)

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<Void> {
        let start = DispatchTime.now().uptimeNanoseconds
        return base.execute(sql: query, onRow).always { [timer] _ in
            timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start))
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - start)) }
        try await base.execute(sql: query, onRow)
    }

    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await base.withSession { [timer] session in try await closure(MeasuredSQLDatabase(session, timer: timer)) }
    }

    private init(_ base: any SQLDatabase, timer: Timer) {
        self.base = base
        self.timer = timer
    }
}
