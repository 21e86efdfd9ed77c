import Foundation
import Logging
import Synchronization

/// swift-log as one JSON object per line on standard error (issue 29): `ts`, `level`, `logger`, `message`, then the
/// metadata. What is logged is chosen where it is logged: request lines carry the route pattern, never the path,
/// the query or a body, and no secret is ever put in a message or in metadata.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    /// A handler for `label` (what `LoggingSystem.bootstrap(JSONLogHandler.init)` passes).
    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// One line for `event`. An attached error is not written: its description may carry what it was given.
    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "ts": Self.timestamp(Date()), "level": event.level.rawValue, "logger": label, "message": event.message.description,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) where object[key] == nil {
            object[key] = Self.json(value)
        }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        data.append(0x0A)
        Self.output.withLock { _ in FileHandle.standardError.write(data) }
    }

    /// One writer at a time, so lines from several threads never interleave.
    private static let output = Mutex(())

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let convertible): return convertible.description
        case .array(let values): return values.map(json)
        case .dictionary(let values): return values.mapValues(json)
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// Logging for a server process: JSON lines, and one line per request (`RequestLogMiddleware`). In-process
/// services (tests, the demo) log nothing per request unless this was called.
public enum ServiceLogging {
    /// Installs `JSONLogHandler` as the process's log handler (once; a server command's first step) and turns the
    /// request lines on.
    public static func bootstrapJSON() {
        _ = installed
    }

    private static let installed: Bool = {
        LoggingSystem.bootstrap(JSONLogHandler.init)
        requestLines.withLock { $0 = true }
        return true
    }()

    static var logsRequests: Bool { requestLines.withLock { $0 } }
    private static let requestLines = Mutex(false)
}
