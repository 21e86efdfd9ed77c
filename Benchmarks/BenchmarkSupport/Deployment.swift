// What the benchmarks that start service processes share: the PostgreSQL they run on and a scratch directory.

import Foundation

public enum BenchmarkDeployment {
    /// $TESSERA_BENCH_POSTGRES_URL (scripts/bench starts PostgreSQL and sets it).
    public static func postgresURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["TESSERA_BENCH_POSTGRES_URL"], !url.isEmpty else {
            throw BenchmarkFailure("set TESSERA_BENCH_POSTGRES_URL (scripts/bench starts PostgreSQL)")
        }
        return url
    }

    /// A new empty directory named after `prefix` under the temporary directory; the caller removes it.
    public static func scratchDirectory(_ prefix: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
