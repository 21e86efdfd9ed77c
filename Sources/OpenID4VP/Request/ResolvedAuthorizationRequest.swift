import Foundation
import TesseraJOSE

/// Where and how the response (or an error response) goes (§8.2, §8.3).
public struct ResponseDestination: Sendable, Hashable {
    /// How the response is delivered (§5.6): posted (`direct_post`, `direct_post.jwt`) or redirected.
    public let responseMode: ResponseMode
    /// `response_uri` (direct_post modes) or `redirect_uri` (fragment, query), checked against the Client
    /// Identifier's rules.
    public let uri: String
    /// The key and `enc` for `direct_post.jwt`; nil otherwise.
    public let encryption: ResponseEncryption?
    /// `state` to echo.
    public let state: String?
}

/// An Authorization Request whose verifier was authenticated per its Client Identifier Prefix and whose
/// parameters passed every check: what the consent UI shows and what the response is built for.
public struct ResolvedAuthorizationRequest: Sendable {
    /// The typed request parameters, from the Request Object when there was one.
    public let request: AuthorizationRequest
    /// Who is asking, as far as the wallet could establish it (for the consent screen).
    public let verifier: VerifierInfo
    /// The query to answer: `dcql_query`, or the one `scope` names in `WalletConfiguration.scopes`.
    public let dcqlQuery: DCQLQuery
    /// Every `transaction_data` entry, decoded and checked against the query and the wallet's supported types.
    public let transactionData: [TransactionData]
    /// Where the response goes and how, already checked against the Client Identifier's rules.
    public let destination: ResponseDestination
    /// The metadata in force: the pre-registered one, or `client_metadata`.
    public let clientMetadata: ClientMetadata
    /// `verifier_info` attestations as sent; not validated by this module (§5.11: the wallet MAY use them).
    public let verifierAttestations: [JSONValue]

    /// The full Client Identifier, prefix included: the KB-JWT `aud` and the handover's `client_id` (§14.10).
    public var clientId: String { request.clientId }
    /// The request's `nonce`: bound into every presentation (KB-JWT `nonce`, mdoc handover).
    public var nonce: String { request.nonce }
    /// The request's `state`, echoed in the response.
    public var state: String? { request.state }
    /// The Response Mode the answer uses.
    public var responseMode: ResponseMode { destination.responseMode }

    /// Evaluates the DCQL query against the wallet's credentials (§6.4).
    public func match(_ credentials: [WalletCredential]) -> DCQLMatch {
        DCQLMatch(query: dcqlQuery, credentials: credentials)
    }

    /// The Transaction Data entries a presentation for `queryId` must cover.
    public func transactionData(forQuery queryId: String) -> [TransactionData] {
        transactionData.filter { $0.credentialIds.contains(queryId) }
    }
}

/// Authenticates the verifier (§5.9: per Client Identifier Prefix) and then checks the request (§5–§8): the
/// parameters, the response destination against the identifier, `client_metadata` (§8.5 `invalid_client` for a
/// pre-registered client), the verifier's formats, transaction data (§5.1: unsupported types are an error), and
/// for `direct_post.jwt` the encryption key and `enc` (§8.3).
public func resolveAuthorizationRequest(
    _ parsed: ParsedAuthorizationRequest, walletConfig: WalletConfiguration
) async throws(OpenID4VPError) -> ResolvedAuthorizationRequest {
    let authentication = try await ClientAuthenticator.authenticate(parsed, config: walletConfig)
    let request = try AuthorizationRequest(
        parameters: RequestDefaults.apply(authentication, to: parsed.parameters), scopes: walletConfig.scopes,
        limits: walletConfig.limits)
    guard let dcqlQuery = request.dcqlQuery else { throw .missingDCQLQuery }

    let metadata: ClientMetadata
    if let registered = authentication.preRegisteredMetadata {
        guard request.clientMetadata == nil else { throw .clientMetadataWithPreRegisteredClient }
        metadata = try ClientMetadata(json: registered)
    } else {
        metadata = try request.clientMetadata.map { json throws(OpenID4VPError) in try ClientMetadata(json: json) } ?? .empty
    }
    if let formats = metadata.vpFormatsSupported {
        guard formats.keys.contains(where: { walletConfig.supportedFormats.contains(CredentialFormat(rawValue: $0)) }) else {
            throw .vpFormatsNotSupported
        }
    }

    let destination = try ResponseDestinations.destination(
        for: request, authentication: authentication, metadata: metadata, config: walletConfig)

    var transactionData: [TransactionData] = []
    for encoded in request.transactionData ?? [] {
        let entry = try TransactionData(encoded: encoded, limits: walletConfig.limits.json)
        try entry.validate(against: dcqlQuery, supportedTypes: walletConfig.supportedTransactionDataTypes)
        transactionData.append(entry)
    }

    return ResolvedAuthorizationRequest(
        request: request, verifier: authentication.verifier, dcqlQuery: dcqlQuery, transactionData: transactionData,
        destination: destination, clientMetadata: metadata, verifierAttestations: request.verifierInfo ?? [])
}

/// Where an error response for this request may go, or nil when the wallet must stay silent (§8.5, §14): only a
/// verifier whose request authenticated (signature and trust per its prefix, or pre-registration) and whose
/// response destination passes the identifier's rules receives errors. A `direct_post.jwt` request without a
/// usable key gets its error unencrypted, as §8.3.1 allows.
public func errorResponseDestination(
    for parsed: ParsedAuthorizationRequest, walletConfig: WalletConfiguration
) async -> ResponseDestination? {
    await errorResponseTarget(for: parsed, walletConfig: walletConfig)?.destination
}

/// The verifier an error response may go to, and where (see `errorResponseDestination(for:walletConfig:)`).
public struct ErrorResponseTarget: Sendable {
    /// The authenticated verifier.
    public let verifier: VerifierInfo
    /// Where the error response goes.
    public let destination: ResponseDestination
}

/// `errorResponseDestination(for:walletConfig:)` with the verifier it authenticated, for a consent screen or a
/// log that says who was told.
public func errorResponseTarget(
    for parsed: ParsedAuthorizationRequest, walletConfig: WalletConfiguration
) async -> ErrorResponseTarget? {
    guard let authentication = try? await ClientAuthenticator.authenticate(parsed, config: walletConfig),
        authentication.verifier.isAuthenticated
    else { return nil }
    guard let destination = errorDestination(parsed, authentication, walletConfig) else { return nil }
    return ErrorResponseTarget(verifier: authentication.verifier, destination: destination)
}

private func errorDestination(
    _ parsed: ParsedAuthorizationRequest, _ authentication: ClientAuthentication, _ walletConfig: WalletConfiguration
) -> ResponseDestination? {
    let parameters = RequestDefaults.apply(authentication, to: parsed.parameters)
    guard let modeName = (parameters["response_mode"] ?? .string(ResponseMode.fragment.rawValue)).stringValue,
        let mode = ResponseMode(rawValue: modeName)
    else { return nil }
    let uriName = mode.isDirectPost ? "response_uri" : "redirect_uri"
    guard let uri = parameters[uriName]?.stringValue else { return nil }
    if mode.isDirectPost {
        guard (try? walletConfig.checkContactable(uri, name: uriName)) != nil else { return nil }
    }
    guard (try? authentication.destination.check(uri)) != nil else { return nil }
    let state = parameters["state"]?.stringValue.flatMap { ParameterCharset.isURLSafe($0) ? $0 : nil }
    guard mode == .directPostJWT else {
        return ResponseDestination(responseMode: mode, uri: uri, encryption: nil, state: state)
    }
    let metadataJSON = authentication.preRegisteredMetadata ?? AuthorizationRequestJSON.object(parameters["client_metadata"])
    if let json = metadataJSON, let metadata = try? ClientMetadata(json: json),
        let encryption = try? ResponseEncryption.select(metadata: metadata, preference: walletConfig.contentEncryptionPreference)
    {
        return ResponseDestination(responseMode: .directPostJWT, uri: uri, encryption: encryption, state: state)
    }
    return ResponseDestination(responseMode: .directPost, uri: uri, encryption: nil, state: state)
}

enum AuthorizationRequestJSON {
    /// A JSON-object parameter given as an object or as JSON text.
    static func object(_ value: JSONValue?, limits: JSONLimits = .default) -> JSONObject? {
        switch value {
        case .object(let object)?: return object
        case .string(let text)?: return (try? JSONValue.parse(text, limits: limits))?.objectValue
        default: return nil
        }
    }
}

enum RequestDefaults {
    /// §5.9.3: a `redirect_uri` client (or a client pre-registered with one URI) may omit `redirect_uri`, or
    /// `response_uri` with `direct_post`; the identifier supplies it.
    static func apply(_ authentication: ClientAuthentication, to parameters: JSONObject) -> JSONObject {
        guard let implied = authentication.impliedDestination else { return parameters }
        var parameters = parameters
        let mode = parameters["response_mode"]?.stringValue.flatMap(ResponseMode.init(rawValue:)) ?? .fragment
        if mode.isDirectPost {
            if parameters["response_uri"] == nil && parameters["redirect_uri"] == nil {
                parameters["response_uri"] = .string(implied)
            }
        } else if parameters["redirect_uri"] == nil {
            parameters["redirect_uri"] = .string(implied)
        }
        return parameters
    }
}

enum ResponseDestinations {
    /// §8.2 / §8.3 / §5.9.3: the URI for the mode, allowed for the identifier, https when the wallet posts to it;
    /// the encryption parameters for `direct_post.jwt`.
    static func destination(
        for request: AuthorizationRequest, authentication: ClientAuthentication, metadata: ClientMetadata,
        config: WalletConfiguration
    ) throws(OpenID4VPError) -> ResponseDestination {
        let uri: String
        switch request.responseMode {
        case .directPost, .directPostJWT:
            guard let responseURI = request.responseURI else { throw .missingResponseURI }
            _ = try config.checkContactable(responseURI, name: "response_uri")
            uri = responseURI
        case .fragment, .query:
            guard let redirectURI = request.redirectURI else { throw .missingRedirectURI }
            guard let url = URL(string: redirectURI), url.scheme != nil else {
                throw .invalidParameter(name: "redirect_uri", reason: "not an absolute URI")
            }
            uri = redirectURI
        }
        try authentication.destination.check(uri)
        var encryption: ResponseEncryption?
        if request.responseMode.isEncrypted {
            encryption = try ResponseEncryption.select(metadata: metadata, preference: config.contentEncryptionPreference)
        }
        return ResponseDestination(responseMode: request.responseMode, uri: uri, encryption: encryption, state: request.state)
    }
}
