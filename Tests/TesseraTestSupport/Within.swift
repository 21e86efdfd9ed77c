import Foundation
import ProximityTransport
import Testing

/// A step that did not finish in time.
public struct TestTimeout: Error, CustomStringConvertible {
    public let seconds: Double
    public var description: String { "test step did not finish within \(seconds) s" }
}

/// Runs `body`, failing (instead of hanging) if it takes longer than `seconds`.
public func within<T: Sendable>(
    _ seconds: Double = 10, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TestTimeout(seconds: seconds) }
        return value
    }
}

/// The `TransportError` `body` throws, nil when it succeeds (another error is recorded as an issue).
public func transportError(_ body: () async throws -> Void) async -> TransportError? {
    do {
        try await body()
        return nil
    } catch let error as TransportError {
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

/// A condition that did not hold in time.
public struct ConditionTimeout: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` every 100 ms until it holds, failing after `seconds` (generous: a loaded 2-core machine must not
/// fail it; it only matters when the condition never comes). For what has no completion signal of its own: another
/// process's work, a load reaching a count.
public func waitUntil(_ what: String, within seconds: Double = 120, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    if try await condition() { return }
    throw ConditionTimeout(what: what)
}
