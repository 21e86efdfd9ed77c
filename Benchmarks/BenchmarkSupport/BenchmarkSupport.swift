// What every benchmark target shares: CPU-time readings (per process or per thread clock) and a failure type for
// setup checks. A library target, so the benchmark plugin (which runs executable targets) leaves it alone.

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A setup check that failed: the benchmark stops instead of measuring something else.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// CPU time of `clock` in microseconds.
public func cpuMicroseconds(of clock: clockid_t) -> Int {
    var now = timespec()
    clock_gettime(clock, &now)
    return Int(now.tv_sec) * 1_000_000 + Int(now.tv_nsec) / 1_000
}

/// CPU time the whole process has used (every thread), in microseconds: what "per core" means for a path that hops
/// between the Swift concurrency pool, event loops and database threads.
public func processCPUMicroseconds() -> Int { cpuMicroseconds(of: CLOCK_PROCESS_CPUTIME_ID) }
