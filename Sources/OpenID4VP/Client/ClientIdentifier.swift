/// The Client Identifier Prefixes of §5.9.3, plus `pre-registered` for identifiers without a known prefix
/// (§5.9.2), as named in the wallet metadata `client_id_prefixes_supported` (§10.1).
public enum ClientIdPrefix: String, Sendable, Hashable, CaseIterable {
    case preRegistered = "pre-registered"
    case redirectURI = "redirect_uri"
    case x509SanDNS = "x509_san_dns"
    case x509Hash = "x509_hash"
    case verifierAttestation = "verifier_attestation"
    case decentralizedIdentifier = "decentralized_identifier"
    case openIDFederation = "openid_federation"
    /// Reserved for the Digital Credentials API; never accepted in requests (§5.9.3).
    case origin = "origin"

    /// Whether requests with this prefix must be signed (§5.9.3).
    public var requiresSignedRequest: Bool {
        switch self {
        case .x509SanDNS, .x509Hash, .verifierAttestation, .decentralizedIdentifier, .openIDFederation: return true
        case .preRegistered, .redirectURI, .origin: return false
        }
    }
}

/// A Client Identifier split per §5.9.1: `<client_id_prefix>:<orig_client_id>`, the prefix being the text before
/// the first `:` when it is a known prefix; otherwise the whole value names a pre-registered client (§5.9.2).
/// `full` is what the wallet uses everywhere (KB-JWT `aud`, handover, §14.10).
public struct ClientIdentifier: Sendable, Hashable, CustomStringConvertible {
    public let full: String
    public let prefix: ClientIdPrefix
    /// The part after the prefix (the whole value for pre-registered clients).
    public let original: String

    public init(_ full: String) {
        self.full = full
        if let colon = full.firstIndex(of: ":"), let prefix = ClientIdPrefix(rawValue: String(full[..<colon])),
            prefix != .preRegistered
        {
            self.prefix = prefix
            self.original = String(full[full.index(after: colon)...])
        } else {
            self.prefix = .preRegistered
            self.original = full
        }
    }

    /// The text before the first `:`, whether or not it is a known prefix.
    public var declaredPrefix: String? { full.firstIndex(of: ":").map { String(full[..<$0]) } }

    public var description: String { full }
}
