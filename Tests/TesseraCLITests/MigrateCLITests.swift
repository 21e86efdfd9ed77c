import Foundation
import HTTPTransport
import TesseraHTTP
import TesseraTestSupport
import Testing

/// `tessera SERVICE migrate` and `--auto-migrate` on an empty PostgreSQL database (issue 29): an instance started
/// without migrating refuses with a clear error; two `migrate` runs at once take turns (one migrates, the other finds
/// nothing to do); then two instances started at the same moment both come up ready.
@Suite(.serialized, .enabled(if: FreshPostgresDatabase.available, "needs TESSERA_TEST_POSTGRES_URL"))
struct MigrateCLITests {
    enum Service: String, CaseIterable, Sendable {
        case verifier, provider, ledger

        func serve(database: String, home: URL) -> [String] {
            switch self {
            case .verifier: return ["verifier", "serve", "--database", database, "--port", "0"]
            case .provider:
                return ["provider", "serve", "--database", database, "--port", "0", "--directory", home.appendingPathComponent("provider").path]
            case .ledger:
                return ["ledger", "serve", "--database", database, "--port", "0", "--operator-dir", home.appendingPathComponent("ledger").path]
            }
        }

        func migrate(database: String, home: URL) -> [String] {
            switch self {
            case .ledger: return ["ledger", "migrate", "--database", database, "--operator-dir", home.appendingPathComponent("ledger").path]
            case .provider: return ["provider", "migrate", "--database", database, "--directory", home.appendingPathComponent("provider").path]
            case .verifier: return ["verifier", "migrate", "--database", database]
            }
        }
    }

    @Test(arguments: Service.allCases)
    func migrateOnceThenTwoInstancesStartTogether(service: Service) async throws {
        try await FreshPostgresDatabase.withScratch("tessera-migrate") { url, home in try await startTogether(service, on: url, home: home) }
    }

    private func startTogether(_ service: Service, on databaseURL: String, home: URL) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_HOME"] = home.path
        environment.removeValue(forKey: "DATABASE_URL")

        // PostgreSQL: no migrations at start-up unless asked, so an empty database is refused, by name.
        let refused = try await CLI.runAsync(service.serve(database: databaseURL, home: home), environment: environment)
        #expect(refused.status != 0)
        #expect((refused.stdout + refused.stderr).contains("tessera \(service.rawValue) migrate"), "\(refused.stderr)")

        // Two migrate runs at once: the advisory lock makes them take turns.
        async let first = CLI.runAsync(service.migrate(database: databaseURL, home: home), environment: environment)
        async let second = CLI.runAsync(service.migrate(database: databaseURL, home: home), environment: environment)
        let runs = try await [first, second]
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        #expect(runs.filter { $0.stdout.contains("ran ") }.count == 1, "\(runs.map(\.stdout))")
        #expect(runs.filter { $0.stdout.contains("up to date") }.count == 1, "\(runs.map(\.stdout))")

        // Two instances started at the same moment: both serve and are ready.
        let extra = ["TESSERA_HOME": home.path]
        async let one = ServiceProcess.start(service.serve(database: databaseURL, home: home), environment: extra)
        async let two = ServiceProcess.start(service.serve(database: databaseURL, home: home), environment: extra)
        let instances = try await [one, two]
        defer { instances.forEach { $0.stop() } }
        let http = AsyncHTTPClientTransport()
        defer { Task { try? await http.shutdown() } }
        for instance in instances {
            guard let url = URL(string: instance.baseURL + "/ready") else { throw URLError(.badURL) }
            let ready = try await http.send(HTTPRequest(method: .get, url: url))
            #expect(ready.status == 200, "\(String(decoding: ready.body, as: UTF8.self))")
        }
    }

    /// The vault hosts' database (the hosts themselves need NATS; their start-up policy is the same code).
    @Test func vaultMigrateRunsOnceThenFindsNothingToDo() async throws {
        try await FreshPostgresDatabase.withScratch("tessera-migrate") { databaseURL, home in
            try await migrateTwice(["vault", "migrate", "--database", databaseURL, "--operator-dir", home.appendingPathComponent("ledger").path])
        }
    }

    private func migrateTwice(_ arguments: [String]) async throws {
        let first = try await CLI.runAsync(arguments)
        #expect(first.status == 0 && first.stdout.contains("vault: ran "), "\(first.stderr)")
        let again = try await CLI.runAsync(arguments)
        #expect(again.status == 0 && again.stdout.contains("up to date"), "\(again.stderr)")
    }
}
