/// The suites of one test process share one PostgreSQL (`TESSERA_TEST_POSTGRES_URL`), and Fluent cannot migrate a
/// fresh database from two places at once: its bookkeeping table is created by whoever comes first, and two services'
/// first migrations (or one service's, twice) collide on it and on each other's DDL. Every fixture's start on that
/// database goes through `serialized`, one at a time (a start takes a fraction of a second); what runs after the
/// start stays parallel.
public enum SharedPostgres {
    public static func serialized<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await starts.run(body)
    }

    /// For tests whose processes claim every row of the database they can see (vault hosts lease every vault nobody
    /// holds and renew by host name): two such deployments on the one test PostgreSQL would take each other's rows.
    /// Each runs alone here; everything else stays parallel.
    public static func exclusively<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await claimingDeployments.run(body)
    }

    private static let starts = SerialQueue()
    private static let claimingDeployments = SerialQueue()
}

/// Runs async bodies one after another, in the order they were submitted; a body that throws does not stop the next.
private actor SerialQueue {
    private var last: Task<Void, Never>?

    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = last
        let task = Task {
            await previous?.value
            return try await body()
        }
        last = Task { _ = try? await task.value }
        return try await task.value
    }
}
