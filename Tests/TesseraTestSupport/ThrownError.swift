import Testing

/// Runs `body` and returns the `E` it throws, or nil when it throws nothing. Any other error fails the test (a module
/// throws its own error type only).
public func thrownError<E: Error>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> E? {
    do {
        try body()
        return nil
    } catch {
        return caught(error, as: type, sourceLocation)
    }
}

/// `thrownError` for an async body.
public func thrownError<E: Error>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> E? {
    do {
        try await body()
        return nil
    } catch {
        return caught(error, as: type, sourceLocation)
    }
}

private func caught<E: Error>(_ error: any Error, as type: E.Type, _ sourceLocation: SourceLocation) -> E? {
    if let expected = error as? E { return expected }
    Issue.record("expected a \(E.self), got \(Swift.type(of: error)): \(error)", sourceLocation: sourceLocation)
    return nil
}
