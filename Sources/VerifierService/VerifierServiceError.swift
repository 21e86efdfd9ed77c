/// The service's own failures (wire errors are `APIError`).
public enum VerifierServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration cannot be used (keys, certificates, database URL, web root).
    case configuration(String)
    /// The server could not start or bind.
    case startup(String)

    public var description: String {
        switch self {
        case .configuration(let reason): return "verifier service configuration: \(reason)"
        case .startup(let reason): return "verifier service could not start: \(reason)"
        }
    }
}
