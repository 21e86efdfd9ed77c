import ArgumentParser
import Foundation
import ServiceSupport

/// `--auto-migrate` / `--no-auto-migrate` of every `serve` (issue 29). Unset: on for SQLite (one process owns the
/// embedded file), off for PostgreSQL, where `tessera SERVICE migrate` runs once and the instances then start
/// together without racing to migrate.
struct MigrationOptions: ParsableArguments {
    @Flag(
        name: .customLong("auto-migrate"), inversion: .prefixedNo,
        help: "Run pending database migrations at start-up (default: on for SQLite, off for PostgreSQL).")
    var autoMigrate: Bool?

    func policy(for database: ServiceDatabase) -> MigrationPolicy {
        (autoMigrate ?? database.isSQLite) ? .automatic : .verifyOnly
    }
}

/// What every `migrate` command prints.
enum MigrateReport {
    static func print(_ ran: [String], service: String) {
        if ran.isEmpty {
            Swift.print("\(service): the database is up to date")
        } else {
            Swift.print("\(service): ran \(ran.count) migration(s): \(ran.joined(separator: ", "))")
        }
    }
}
