import Dispatch

/// Runs blocking work (a child process and its pipes) on a Dispatch thread instead of one of Swift concurrency's
/// cooperative threads: on a 2-core CI machine two tests blocking those threads would stall every other suite's
/// async work and make their time limits fire.
public func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}
