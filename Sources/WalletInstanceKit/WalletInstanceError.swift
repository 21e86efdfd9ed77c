/// Everything that stops a lifecycle step, one case per cause; descriptions carry no secret.
public enum WalletInstanceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The event is not allowed in the current state (the transition table says no).
    case illegalTransition(from: WalletInstanceState, event: WalletInstanceEvent)
    /// The provider's Entity Configuration is not a valid self-signed statement of the expected entity.
    case untrustedProvider(String)
    /// The provider answered with an error (`error`, `error_description`) or an unexpected body.
    case provider(status: Int, error: String, description: String)
    /// The provider says the instance is revoked (or no longer registered).
    case instanceRevoked
    /// The step needs an activated instance (a provider, a hardware key), and this one has none.
    case notActivated
    /// The provider could not be reached, or a URL was not valid.
    case transport(String)
    /// The Device Integrity Service refused (no App Attest, no key, an assertion that does not decode) or a
    /// request could not be signed.
    case integrity(String)
    /// The instance file could not be read or written.
    case storage(String)
    /// A version choice, an attestation or a status list the wallet refuses (the rule is named in the case).
    case attestation(AttestationCheckError)

    /// A sentence for the user; it carries no secret.
    public var description: String {
        switch self {
        case .illegalTransition(let from, let event): return "\(event.rawValue) is not allowed in state \(from.rawValue)"
        case .untrustedProvider(let why): return "the Wallet Provider is not trusted: \(why)"
        case .provider(let status, let error, let description): return "the Wallet Provider answered \(status) \(error): \(description)"
        case .instanceRevoked: return "the Wallet Instance was revoked by the provider"
        case .notActivated: return "the Wallet Instance is not activated"
        case .transport(let why): return "cannot reach the Wallet Provider: \(why)"
        case .integrity(let why): return "device integrity: \(why)"
        case .storage(let why): return "wallet instance storage: \(why)"
        case .attestation(let why): return "refused: \(why)"
        }
    }
}
