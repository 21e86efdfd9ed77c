/// The Client Identifier Prefixes of §5.9.3, plus `pre-registered` for identifiers without a known prefix
/// (§5.9.2), as named in the wallet metadata `client_id_prefixes_supported` (§10.1).
public enum ClientIdPrefix: String, Sendable, Hashable, CaseIterable {
    /// No known prefix: the wallet must know the whole identifier beforehand (§5.9.2).
    case preRegistered = "pre-registered"
    /// `redirect_uri:`: the identifier is the redirect or response URI; requests are unsigned and the verifier is
    /// never authenticated (§5.9.3).
    case redirectURI = "redirect_uri"
    /// `x509_san_dns:`: a DNS name that a `dNSName` SAN of the Request Object's `x5c` leaf must carry (§5.9.3).
    case x509SanDNS = "x509_san_dns"
    /// `x509_hash:`: base64url SHA-256 of the DER `x5c` leaf certificate (§5.9.3).
    case x509Hash = "x509_hash"
    /// `verifier_attestation:`: the `sub` of a Verifier Attestation JWT in the `jwt` header (§5.9.3, §12).
    case verifierAttestation = "verifier_attestation"
    /// `decentralized_identifier:`: a DID whose verification method the `kid` names (§5.9.3).
    case decentralizedIdentifier = "decentralized_identifier"
    /// `openid_federation:`: an OpenID Federation Entity Identifier; recognised, but this module refuses it
    /// (`unsupportedClientIdPrefix`).
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
    /// The identifier as received, prefix included: what goes into the KB-JWT `aud` and the handover (§14.10).
    public let full: String
    /// The known prefix, or `.preRegistered` when the text before `:` is none.
    public let prefix: ClientIdPrefix
    /// The part after the prefix (the whole value for pre-registered clients).
    public let original: String

    /// Splits `full`; never fails (an unknown prefix makes the whole value a pre-registered identifier).
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

    /// `full`.
    public var description: String { full }
}
