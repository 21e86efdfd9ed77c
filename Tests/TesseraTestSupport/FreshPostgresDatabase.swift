import Foundation

/// A PostgreSQL database of its own on the test server (`TESSERA_TEST_POSTGRES_URL`'s), for tests of what a service
/// does with an empty database: its first start, `migrate`, several instances starting at once. Made and dropped
/// with `psql` (scripts/lib/postgres.sh gives the test role CREATEDB).
public struct FreshPostgresDatabase: Sendable {
    /// The new database's URL, in the form the services take (`postgres://…?tlsmode=disable`).
    public let url: String
    private let name: String
    private let admin: String

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// nil without `TESSERA_TEST_POSTGRES_URL`.
    public static var available: Bool { ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"].map { !$0.isEmpty } ?? false }

    public static func create() throws -> FreshPostgresDatabase {
        guard let shared = ProcessInfo.processInfo.environment["TESSERA_TEST_POSTGRES_URL"],
            var components = URLComponents(string: shared)
        else { throw Unavailable(description: "TESSERA_TEST_POSTGRES_URL is not set") }
        let name = "tessera_fresh_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // libpq takes sslmode, not the services' tlsmode.
        components.query = "sslmode=disable"
        let admin = components.string ?? shared
        try psql(admin, "CREATE DATABASE \(name)")
        var own = URLComponents(string: shared) ?? components
        own.path = "/" + name
        return FreshPostgresDatabase(url: own.string ?? shared, name: name, admin: admin)
    }

    /// A fresh database and an empty scratch directory named after `prefix` for `body`, both removed afterwards: what
    /// a test of service processes on a database of their own needs.
    public static func withScratch<T>(
        _ prefix: String, _ body: (_ databaseURL: String, _ directory: URL) async throws -> T
    ) async throws -> T {
        let database = try create()
        defer { database.drop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(database.url, directory)
    }

    /// Drops it (connections still open are ended first).
    public func drop() {
        try? Self.psql(admin, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    private static func psql(_ url: String, _ statement: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "-v", "ON_ERROR_STOP=1", "-qtAc", statement]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Unavailable(description: "psql \(statement): \(text)") }
    }
}
