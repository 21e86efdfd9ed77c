import Foundation
import TesseraHTTP
import TesseraCore
import TesseraJOSE
import X509

/// Size limits for everything a verifier sends.
public struct OpenID4VPLimits: Sendable, Hashable {
    /// Longest invocation URI, in bytes.
    public var maxInvocationURILength: Int
    /// Limits for Request Objects and Verifier Attestation JWTs.
    public var jose: JOSELimits
    /// Limits for JSON-valued parameters.
    public var json: JSONLimits
    /// Limits for the DCQL query.
    public var dcql: DCQLLimits
    /// Most `transaction_data` entries.
    public var maxTransactionData: Int

    /// Limits: by default a 256 KiB invocation URI, 1 MiB Request Objects and JSON parameters (depth 32) and 16
    /// transaction data entries.
    public init(
        maxInvocationURILength: Int = 256 << 10, jose: JOSELimits = JOSELimits(maxCompactLength: 1 << 20, json: .default),
        json: JSONLimits = JSONLimits(maxBytes: 1 << 20, maxDepth: 32), dcql: DCQLLimits = .default, maxTransactionData: Int = 16
    ) {
        self.maxInvocationURILength = maxInvocationURILength
        self.jose = jose
        self.json = json
        self.dcql = dcql
        self.maxTransactionData = maxTransactionData
    }

    /// The limits `init()` gives.
    public static let `default` = OpenID4VPLimits()
}

/// A verifier the wallet knows in advance (§5.9.2): identified by a Client Identifier without a prefix.
public struct PreRegisteredClient: Sendable {
    /// The Client Identifier without a prefix, as the verifier sends it (§5.9.2); also the key in
    /// `WalletConfiguration.preRegisteredClients`.
    public var clientId: String
    /// Shown to the End-User (a trusted source, unlike `client_metadata`).
    public var displayName: String?
    /// A logo to show beside `displayName` (a trusted source, unlike `client_metadata`).
    public var logoURI: String?
    /// The exact `response_uri` / `redirect_uri` values the client may use (RFC 9700 §4.1.3: exact match).
    public var redirectURIs: [String]
    /// Keys that verify the client's signed Request Objects (matched by `kid` when the header has one).
    public var requestSigningKeys: [JWK]
    /// Whether unsigned requests are refused.
    public var requiresSignedRequests: Bool
    /// Verifier metadata held by the wallet (`jwks`, `encrypted_response_enc_values_supported`,
    /// `vp_formats_supported`); a request that also sends `client_metadata` is refused (§8.5 `invalid_client`).
    public var metadata: JSONObject

    /// A pre-registered client; with `requestSigningKeys` its signed requests are verified, with
    /// `requiresSignedRequests` unsigned ones are refused.
    public init(
        clientId: String, displayName: String? = nil, logoURI: String? = nil, redirectURIs: [String],
        requestSigningKeys: [JWK] = [], requiresSignedRequests: Bool = false, metadata: JSONObject = JSONObject()
    ) {
        self.clientId = clientId
        self.displayName = displayName
        self.logoURI = logoURI
        self.redirectURIs = redirectURIs
        self.requestSigningKeys = requestSigningKeys
        self.requiresSignedRequests = requiresSignedRequests
        self.metadata = metadata
    }
}

/// What the wallet does when a verifier's certificate chain does not lead to one of its anchors.
public enum VerifierTrustPolicy: Sendable, Hashable {
    /// Refuse the request (the default, and what HAIP deployments require).
    case requireTrusted
    /// Continue with `VerifierInfo.clientIdValid == false` and the failures listed, showing no display name;
    /// such a verifier never receives error responses. Signature and identifier mismatches are still fatal.
    case allowUntrusted
}

/// Everything the holder flow needs from the wallet: its HTTP access, clock and randomness, and its policy.
public struct WalletConfiguration: Sendable {
    /// Fetches Request Objects and posts responses; it must not follow redirects (§14.8), and a redirect answered is
    /// refused here as well.
    public var httpClient: any HTTPClient
    /// The instant for `exp` / `nbf` checks, certificate validity and the KB-JWT `iat`.
    public var clock: any TesseraClock
    /// Draws `wallet_nonce` values and the ephemeral key of an encrypted response (`direct_post.jwt`).
    public var random: any RandomSource
    /// URI schemes the wallet is invoked with (§9; `haip-vp` from HAIP §5.1).
    public var invocationSchemes: Set<String>
    /// Client Identifier Prefixes accepted (`openid_federation` and `origin` are never accepted: the first is not
    /// implemented, the second reserved, §5.9.3).
    public var supportedClientIdPrefixes: Set<ClientIdPrefix>
    /// Anchors for `x509_san_dns` / `x509_hash` request signers (§5.9.3).
    public var verifierTrustAnchors: [Certificate]
    /// `x509_san_dns` Client Identifiers the wallet trusts to choose any redirect/response URI (§5.9.3).
    public var trustedClientIds: Set<String>
    /// Verifiers known in advance, keyed by their Client Identifier (§5.9.2).
    public var preRegisteredClients: [String: PreRegisteredClient]
    /// Verifier Attestation issuers (`iss`) and their keys (§12).
    public var verifierAttestationIssuers: [String: [JWK]]
    /// Resolves `decentralized_identifier` Client Identifiers; `KeyDIDResolver` (`did:jwk`, `did:key`) by default.
    public var didResolver: any DIDResolver
    /// `transaction_data` types the wallet implements (§5.1: any other type is an error).
    public var supportedTransactionDataTypes: Set<String>
    /// `scope` values the wallet maps to DCQL queries (§5.5).
    public var scopes: [String: DCQLQuery]
    /// Credential formats the wallet presents.
    public var supportedFormats: Set<CredentialFormat>
    /// Whether `request_uri_method=post` is honoured (§5.10); otherwise the wallet uses GET.
    public var usesRequestURIMethodPost: Bool
    /// Extra wallet metadata members sent with `request_uri_method=post` (§5.10, §10); the module adds
    /// `vp_formats_supported`, `client_id_prefixes_supported`, `response_types_supported`,
    /// `response_modes_supported` and `request_object_signing_alg_values_supported` unless given here.
    public var walletMetadata: JSONObject
    /// `enc` values in order of preference (§8.3; HAIP §5: A256GCM preferred when both are supported).
    public var contentEncryptionPreference: [JWEContentEncryption]
    /// What to do when a verifier's `x5c` chain does not lead to an anchor; `.requireTrusted` by default.
    public var verifierTrustPolicy: VerifierTrustPolicy
    /// Allows `http://127.0.0.1` / `http://localhost` URIs (tests, local demos); all other URIs the wallet
    /// contacts must be https (§14.7).
    public var allowsLoopbackHTTP: Bool
    /// Tolerance for `exp` / `nbf` / `iat` checks.
    public var clockSkew: TimeInterval
    /// Size limits applied to everything the verifier sends.
    public var limits: OpenID4VPLimits

    /// A configuration. By default: every implemented Client Identifier Prefix, `openid4vp`, `haip-vp` and `https`
    /// invocation, SD-JWT VC and mdoc, `request_uri_method=post`, A256GCM preferred (HAIP §5), untrusted verifiers
    /// refused, 60 s clock skew. Pass `verifierTrustAnchors` for x509 verifiers: without them no `x509_*` request is
    /// trusted.
    public init(
        httpClient: any HTTPClient,
        clock: any TesseraClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(),
        invocationSchemes: Set<String> = ["openid4vp", "haip-vp", "https"],
        supportedClientIdPrefixes: Set<ClientIdPrefix> = [
            .preRegistered, .redirectURI, .x509SanDNS, .x509Hash, .verifierAttestation, .decentralizedIdentifier,
        ],
        verifierTrustAnchors: [Certificate] = [],
        trustedClientIds: Set<String> = [],
        preRegisteredClients: [String: PreRegisteredClient] = [:],
        verifierAttestationIssuers: [String: [JWK]] = [:],
        didResolver: any DIDResolver = KeyDIDResolver(),
        supportedTransactionDataTypes: Set<String> = [],
        scopes: [String: DCQLQuery] = [:],
        supportedFormats: Set<CredentialFormat> = [.sdJWTVC, .mdoc],
        usesRequestURIMethodPost: Bool = true,
        walletMetadata: JSONObject = JSONObject(),
        contentEncryptionPreference: [JWEContentEncryption] = [.a256gcm, .a128gcm],
        verifierTrustPolicy: VerifierTrustPolicy = .requireTrusted,
        allowsLoopbackHTTP: Bool = false,
        clockSkew: TimeInterval = 60,
        limits: OpenID4VPLimits = .default
    ) {
        self.httpClient = httpClient
        self.clock = clock
        self.random = random
        self.invocationSchemes = invocationSchemes
        self.supportedClientIdPrefixes = supportedClientIdPrefixes
        self.verifierTrustAnchors = verifierTrustAnchors
        self.trustedClientIds = trustedClientIds
        self.preRegisteredClients = preRegisteredClients
        self.verifierAttestationIssuers = verifierAttestationIssuers
        self.didResolver = didResolver
        self.supportedTransactionDataTypes = supportedTransactionDataTypes
        self.scopes = scopes
        self.supportedFormats = supportedFormats
        self.usesRequestURIMethodPost = usesRequestURIMethodPost
        self.walletMetadata = walletMetadata
        self.contentEncryptionPreference = contentEncryptionPreference
        self.verifierTrustPolicy = verifierTrustPolicy
        self.allowsLoopbackHTTP = allowsLoopbackHTTP
        self.clockSkew = clockSkew
        self.limits = limits
    }

    /// The `wallet_metadata` sent with `request_uri_method=post` (§5.10, §10.1).
    public func effectiveWalletMetadata(for clientId: ClientIdentifier) -> JSONObject {
        var metadata = walletMetadata
        if metadata["vp_formats_supported"] == nil {
            var formats = JSONObject()
            if supportedFormats.contains(.sdJWTVC) {
                formats[CredentialFormat.sdJWTVC.rawValue] = [
                    "sd-jwt_alg_values": ["ES256", "ES384", "ES512", "EdDSA"], "kb-jwt_alg_values": ["ES256"],
                ]
            }
            if supportedFormats.contains(.mdoc) {
                formats[CredentialFormat.mdoc.rawValue] = ["issuerauth_alg_values": [-7, -9], "deviceauth_alg_values": [-7, -9]]
            }
            metadata["vp_formats_supported"] = .object(formats)
        }
        if metadata["client_id_prefixes_supported"] == nil {
            let prefixes = ClientIdPrefix.allCases.filter { supportedClientIdPrefixes.contains($0) && $0 != .origin && $0 != .openIDFederation }
            metadata["client_id_prefixes_supported"] = .array(prefixes.map { .string($0.rawValue) })
        }
        if metadata["response_types_supported"] == nil { metadata["response_types_supported"] = ["vp_token"] }
        if metadata["response_modes_supported"] == nil {
            metadata["response_modes_supported"] = .array(ResponseMode.allCases.map { .string($0.rawValue) })
        }
        // §5.10: MUST NOT be included when the prefix precludes signed Request Objects.
        if clientId.prefix == .redirectURI {
            metadata["request_object_signing_alg_values_supported"] = nil
        } else if metadata["request_object_signing_alg_values_supported"] == nil {
            metadata["request_object_signing_alg_values_supported"] = ["ES256", "ES384", "ES512", "EdDSA"]
        }
        if metadata["authorization_encryption_alg_values_supported"] == nil {
            metadata["authorization_encryption_alg_values_supported"] = ["ECDH-ES"]
        }
        if metadata["authorization_encryption_enc_values_supported"] == nil {
            metadata["authorization_encryption_enc_values_supported"] = .array(contentEncryptionPreference.map { .string($0.rawValue) })
        }
        return metadata
    }

    /// §14.7: URIs the wallet contacts are https (loopback http only when allowed).
    func checkContactable(_ text: String, name: String) throws(OpenID4VPError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .invalidParameter(name: name, reason: "not an absolute URI")
        }
        if scheme == "https" { return url }
        if scheme == "http" && allowsLoopbackHTTP && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
            return url
        }
        throw .insecureURI(name: name)
    }
}
