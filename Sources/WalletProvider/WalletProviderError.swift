/// Why the provider could not start (bad configuration, unusable directory or database).
public enum WalletProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    case configuration(String)
    case startup(String)

    public var description: String {
        switch self {
        case .configuration(let text): return "configuration: \(text)"
        case .startup(let text): return "startup: \(text)"
        }
    }
}
