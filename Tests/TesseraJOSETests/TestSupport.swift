import Foundation
import TesseraCore
import Testing

@testable import TesseraJOSE
@_exported import TesseraTestSupport

enum Fixtures {
    static func url(_ name: String) throws -> URL { try fixtureURL(name, in: .module) }

    static func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    /// A fixture file parsed with TesseraJOSE's own strict parser.
    static func json(_ name: String) throws -> JSONValue { try JSONValue.parse(data(name)) }
}

/// Runs `body` and returns the `JOSEError` it throws, or nil if it throws nothing. Any other error fails the test
/// (the library throws `JOSEError` only).
func joseError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> JOSEError? {
    do {
        try body()
        return nil
    } catch let error as JOSEError {
        return error
    } catch {
        Issue.record("expected a JOSEError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Runs `body` and returns the `JSONError` it throws, or nil if it throws nothing.
func jsonError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> JSONError? {
    do {
        try body()
        return nil
    } catch let error as JSONError {
        return error
    } catch {
        Issue.record("expected a JSONError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Async variant of `joseError`.
func joseError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async -> JOSEError? {
    do {
        try await body()
        return nil
    } catch let error as JOSEError {
        return error
    } catch {
        Issue.record("expected a JOSEError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A fixed RandomSource for reproducible JWE tests.
func seeded(_ seed: UInt64) -> SeededRandomSource { SeededRandomSource(seed: seed) }
