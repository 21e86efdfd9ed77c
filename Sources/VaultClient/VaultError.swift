/// What can go wrong on the app side; ledger errors carry the ledger's `error` code.
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    case notEnrolled
    case ledger(status: Int, error: String, description: String)
    /// The ledger's `lat_proof` does not match the LAT this device holds: possibly a phishing ledger. Nothing was sent.
    case latMismatch
    case invalidResponse(String)
    case noTransactionKeys
    case storage(String)
    case crypto(String)

    public var description: String {
        switch self {
        case .notEnrolled: "this device is not enrolled"
        case .ledger(let status, let error, let description): "the ledger answered \(status) \(error): \(description)"
        case .latMismatch: "the ledger could not prove it knows this device's LAT: not a genuine ledger, nothing was sent"
        case .invalidResponse(let what): "the ledger's answer is not valid: \(what)"
        case .noTransactionKeys: "no transaction key is left: enroll again"
        case .storage(let what): "vault state: \(what)"
        case .crypto(let what): "crypto: \(what)"
        }
    }
}
