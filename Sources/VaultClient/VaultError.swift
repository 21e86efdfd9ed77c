/// What can go wrong on the app side; ledger errors carry the ledger's `error` code.
public enum VaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// There is no `vault.json`: enroll first.
    case notEnrolled
    /// The ledger answered with another status than expected: its HTTP status and `error`/`error_description`
    /// (status 0 and `unreachable` when it could not be reached).
    case ledger(status: Int, error: String, description: String)
    /// The ledger's `lat_proof` does not match the LAT this device holds: possibly a phishing ledger. Nothing was sent.
    case latMismatch
    /// An answer (the ledger's or the vault's) is missing a member or holds a value that does not check out.
    case invalidResponse(String)
    /// The transaction key the ledger named is not among this device's: enroll again.
    case noTransactionKeys
    /// The saved state or session could not be read or written.
    case storage(String)
    /// A key could not be made, or sealing or signing failed.
    case crypto(String)
    /// The vault answered the command with an error (`code` as in the module README's handler table).
    case vault(code: String, message: String)
    /// The bootstrap reply was missing, unsigned or signed by another key, or does not answer this request.
    case bootstrapRefused(String)
    /// No answer from the vault in time (the command may still run once: retry with the same event id).
    case timeout
    /// The bus refused or dropped the connection.
    case bus(String)
    /// No session with the vault yet: bootstrap first.
    case noSession

    /// A sentence for the user; it carries no secret.
    public var description: String {
        switch self {
        case .notEnrolled: "this device is not enrolled"
        case .ledger(let status, let error, let description): "the ledger answered \(status) \(error): \(description)"
        case .latMismatch: "the ledger could not prove it knows this device's LAT: not a genuine ledger, nothing was sent"
        case .invalidResponse(let what): "the ledger's answer is not valid: \(what)"
        case .noTransactionKeys: "no transaction key is left: enroll again"
        case .storage(let what): "vault state: \(what)"
        case .crypto(let what): "crypto: \(what)"
        case .vault(let code, let message): "the vault answered \(code): \(message)"
        case .bootstrapRefused(let why): "vault bootstrap refused: \(why)"
        case .timeout: "the vault did not answer in time"
        case .bus(let why): "NATS: \(why)"
        case .noSession: "no session with the vault: bootstrap first"
        }
    }
}
