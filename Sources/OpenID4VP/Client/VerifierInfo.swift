import Foundation
import X509

/// Who is asking, as far as the wallet could establish it (§5.9). `displayName` and `logoUri` come only from
/// trusted sources — the validated certificate's subject, or the wallet's pre-registration — never from
/// `client_metadata`.
public struct VerifierInfo: Sendable, Equatable {
    /// Where trust in the Client Identifier comes from.
    public enum TrustRoot: Sendable, Hashable {
        /// The wallet's own registration of the client (§5.9.2).
        case preRegistration
        /// A certificate chain validated to the anchor with this subject (`x509_san_dns`, `x509_hash`).
        case x509(anchorSubject: String)
        /// A Verifier Attestation JWT from this trusted issuer (§12).
        case verifierAttestation(issuer: String)
        /// Proof of control of the DID's key (`decentralized_identifier`).
        case decentralizedIdentifier(String)
    }

    /// The full Client Identifier, prefix included (§14.10).
    public let clientId: String
    /// The prefix the identifier was authenticated under.
    public let clientIdPrefix: ClientIdPrefix
    /// Whether the prefix's rules held (signature, chain or registration, identifier binding).
    public let clientIdValid: Bool
    /// What failed when `clientIdValid` is false (only with `VerifierTrustPolicy.allowUntrusted`).
    public let clientIdValidationErrors: [OpenID4VPError]
    /// The verifier's name for the consent screen: the leaf certificate's organizationName (else commonName) or the
    /// pre-registered name; nil otherwise.
    public let displayName: String?
    /// A logo URI from the wallet's pre-registration only.
    public let logoUri: String?
    /// Where trust comes from; nil when none was established (a `redirect_uri` client, or an untrusted chain).
    public let trustRoot: TrustRoot?
    /// The validated leaf certificate (x509 prefixes), for details in the UI.
    public let certificate: Certificate?

    /// The outcome of client authentication; `resolveAuthorizationRequest` builds it.
    public init(
        clientId: String, clientIdPrefix: ClientIdPrefix, clientIdValid: Bool, clientIdValidationErrors: [OpenID4VPError] = [],
        displayName: String? = nil, logoUri: String? = nil, trustRoot: TrustRoot? = nil, certificate: Certificate? = nil
    ) {
        self.clientId = clientId
        self.clientIdPrefix = clientIdPrefix
        self.clientIdValid = clientIdValid
        self.clientIdValidationErrors = clientIdValidationErrors
        self.displayName = displayName
        self.logoUri = logoUri
        self.trustRoot = trustRoot
        self.certificate = certificate
    }

    /// Whether the request was authenticated: the prefix's rules held and trust is rooted somewhere the wallet
    /// trusts. Only such verifiers receive error responses (§8.5); `redirect_uri` clients never are.
    public var isAuthenticated: Bool { clientIdValid && trustRoot != nil }
}
