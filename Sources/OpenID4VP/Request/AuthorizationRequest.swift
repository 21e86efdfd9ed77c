import Foundation
import TesseraJOSE

/// The parameters of an OpenID4VP Authorization Request (§5), typed and checked: what a wallet acts on after
/// resolution, and what a verifier builds to send (as URI parameters or as Request Object claims).
public struct AuthorizationRequest: Sendable {
    /// `"vp_token"`, the only `response_type` this module accepts (§5.6).
    public static let vpTokenResponseType = "vp_token"

    /// The full Client Identifier (§5.9.1).
    public var clientId: String
    /// `response_type`: `vp_token` (§5.6).
    public var responseType: String
    /// `response_mode` (§5.6, §8.2, §8.3); `fragment` when the request leaves it out.
    public var responseMode: ResponseMode
    /// `response_uri`, for `direct_post` / `direct_post.jwt` (§8.2).
    public var responseURI: String?
    /// `redirect_uri`, for `fragment` / `query`.
    public var redirectURI: String?
    /// `nonce` (§5.2): ASCII URL-safe characters.
    public var nonce: String
    /// `state` (§5.2): ASCII URL-safe characters.
    public var state: String?
    /// `dcql_query` (§5.1, §6); nil when `scope` names the query.
    public var dcqlQuery: DCQLQuery?
    /// `scope` (§5.5), space-separated aliases of DCQL queries.
    public var scope: String?
    /// `client_metadata` (§5.1) as sent (unverified).
    public var clientMetadata: JSONObject?
    /// `transaction_data` (§5.1): the base64url strings as received.
    public var transactionData: [String]?
    /// `verifier_info` (§5.1): attestations about the verifier, as sent (not validated by this module).
    public var verifierInfo: [JSONValue]?
    /// `wallet_nonce` echoed in a Request Object fetched by POST (§5.10).
    public var walletNonce: String?
    /// Every parameter as received (unknown ones included, §5: ignored unless recognized).
    public let parameters: JSONObject

    /// Builds a request (verifier side). `parameters` is derived from the typed members.
    public init(
        clientId: String, responseMode: ResponseMode, responseURI: String? = nil, redirectURI: String? = nil,
        nonce: String, state: String? = nil, dcqlQuery: DCQLQuery? = nil, scope: String? = nil,
        clientMetadata: JSONObject? = nil, transactionData: [String]? = nil, verifierInfo: [JSONValue]? = nil,
        walletNonce: String? = nil
    ) throws(OpenID4VPError) {
        self.clientId = clientId
        self.responseType = Self.vpTokenResponseType
        self.responseMode = responseMode
        self.responseURI = responseURI
        self.redirectURI = redirectURI
        self.nonce = nonce
        self.state = state
        self.dcqlQuery = dcqlQuery
        self.scope = scope
        self.clientMetadata = clientMetadata
        self.transactionData = transactionData
        self.verifierInfo = verifierInfo
        self.walletNonce = walletNonce
        var object = JSONObject()
        object["response_type"] = .string(responseType)
        object["client_id"] = .string(clientId)
        object["response_mode"] = .string(responseMode.rawValue)
        if let responseURI { object["response_uri"] = .string(responseURI) }
        if let redirectURI { object["redirect_uri"] = .string(redirectURI) }
        object["nonce"] = .string(nonce)
        if let state { object["state"] = .string(state) }
        if let dcqlQuery { object["dcql_query"] = .object(dcqlQuery.json) }
        if let scope { object["scope"] = .string(scope) }
        if let clientMetadata { object["client_metadata"] = .object(clientMetadata) }
        if let transactionData { object["transaction_data"] = .array(transactionData.map(JSONValue.string)) }
        if let verifierInfo { object["verifier_info"] = .array(verifierInfo) }
        if let walletNonce { object["wallet_nonce"] = .string(walletNonce) }
        self.parameters = object
        try checkRules()
    }

    /// Reads and checks the parameters (from the URI or from a Request Object's claims). JSON-valued parameters
    /// may be JSON or, as in a URI, JSON text (§5.1).
    public init(parameters: JSONObject, scopes: [String: DCQLQuery] = [:], limits: OpenID4VPLimits = .default) throws(OpenID4VPError) {
        self.parameters = parameters
        guard let clientId = try Self.string(parameters, "client_id") else { throw .missingParameter("client_id") }
        self.clientId = clientId
        guard let responseType = try Self.string(parameters, "response_type") else { throw .missingParameter("response_type") }
        self.responseType = responseType
        // §5.6: `fragment` is the default Response Mode of `vp_token`.
        let mode = try Self.string(parameters, "response_mode") ?? ResponseMode.fragment.rawValue
        guard let responseMode = ResponseMode(rawValue: mode) else { throw .unsupportedResponseMode(mode) }
        self.responseMode = responseMode
        self.responseURI = try Self.string(parameters, "response_uri")
        self.redirectURI = try Self.string(parameters, "redirect_uri")
        guard let nonce = try Self.string(parameters, "nonce") else { throw .missingNonce }
        self.nonce = nonce
        self.state = try Self.string(parameters, "state")
        self.scope = try Self.string(parameters, "scope")
        self.walletNonce = try Self.string(parameters, "wallet_nonce")
        self.clientMetadata = try Self.json(parameters, "client_metadata", limits: limits)?.objectValue.orThrow(
            .invalidClientMetadata("not a JSON object"))
        if let value = try Self.json(parameters, "transaction_data", limits: limits) {
            guard let array = value.arrayValue, !array.isEmpty, array.count <= limits.maxTransactionData else {
                throw .invalidTransactionData("transaction_data is not a non-empty array of at most \(limits.maxTransactionData)")
            }
            var strings: [String] = []
            for element in array {
                guard let text = element.stringValue else { throw .invalidTransactionData("an entry is not a string") }
                strings.append(text)
            }
            self.transactionData = strings
        } else {
            self.transactionData = nil
        }
        if let value = try Self.json(parameters, "verifier_info", limits: limits) {
            guard let array = value.arrayValue, !array.isEmpty else {
                throw .invalidParameter(name: "verifier_info", reason: "not a non-empty array")
            }
            self.verifierInfo = array
        } else {
            self.verifierInfo = nil
        }
        if let value = try Self.json(parameters, "dcql_query", limits: limits) {
            guard let object = value.objectValue else { throw .invalidDCQLQuery("not a JSON object") }
            guard scope == nil else { throw .dcqlQueryAndScope }
            self.dcqlQuery = try DCQLQuery(json: object, limits: limits.dcql)
        } else if let scope {
            self.dcqlQuery = try Self.query(forScope: scope, scopes: scopes)
        } else {
            throw .missingDCQLQuery
        }
        try checkRules()
    }

    /// §5.2, §5.6, §8.2 rules across parameters.
    private func checkRules() throws(OpenID4VPError) {
        guard responseType == Self.vpTokenResponseType else { throw .unsupportedResponseType(responseType) }
        guard ParameterCharset.isURLSafe(nonce) else { throw .invalidNonce }
        if let state, !ParameterCharset.isURLSafe(state) { throw .invalidState }
        if dcqlQuery == nil && scope == nil { throw .missingDCQLQuery }
        if responseMode.isDirectPost {
            // §8.2: redirect_uri MUST NOT be present; the wallet answers invalid_request.
            guard redirectURI == nil else { throw .redirectURIWithDirectPost }
            guard responseURI != nil else { throw .missingResponseURI }
        }
    }

    /// The Request Object claims (§5, RFC 9101): the parameters, with `iss` never used by wallets (§5).
    public func requestObjectClaims(audience: String = "https://self-issued.me/v2") -> JSONObject {
        var claims = parameters
        if claims["aud"] == nil { claims["aud"] = .string(audience) }
        return claims
    }

    /// The parameters as `application/x-www-form-urlencoded` pairs (objects as JSON text), for by-value requests.
    public var uriParameters: [(String, String)] {
        parameters.map { member in
            if case .string(let text) = member.value { return (member.key, text) }
            return (member.key, member.value.serializedString)
        }
    }

    /// `scope` → DCQL query (§5.5): every space-separated value must be a known alias; their credential queries
    /// and credential sets are combined (ids are unique across aliases by definition).
    static func query(forScope scope: String, scopes: [String: DCQLQuery]) throws(OpenID4VPError) -> DCQLQuery {
        let values = scope.split(separator: " ").map(String.init)
        guard !values.isEmpty else { throw .unsupportedScope(scope) }
        var credentials: [CredentialQuery] = []
        var sets: [CredentialSetQuery] = []
        var anySets = false
        for value in values {
            guard let query = scopes[value] else { throw .unsupportedScope(value) }
            credentials += query.credentials
            if let querySets = query.credentialSets {
                anySets = true
                sets += querySets
            } else {
                sets.append(CredentialSetQuery(uncheckedOptions: [query.credentials.map(\.id)], required: true))
            }
        }
        if values.count == 1, let only = scopes[values[0]] { return only }
        return try DCQLQuery(credentials: credentials, credentialSets: anySets || values.count > 1 ? sets : nil)
    }

    // MARK: Parameter access

    static func string(_ parameters: JSONObject, _ name: String) throws(OpenID4VPError) -> String? {
        guard let value = parameters[name] else { return nil }
        guard let text = value.stringValue else { throw .invalidParameter(name: name, reason: "not a string") }
        return text
    }

    /// A JSON-valued parameter: the JSON itself (Request Object) or JSON text (URI parameter).
    static func json(_ parameters: JSONObject, _ name: String, limits: OpenID4VPLimits) throws(OpenID4VPError) -> JSONValue? {
        guard let value = parameters[name] else { return nil }
        guard case .string(let text) = value else { return value }
        do {
            return try JSONValue.parse(text, limits: limits.json)
        } catch {
            throw .invalidParameter(name: name, reason: "not JSON (\(error))")
        }
    }
}

extension Optional {
    func orThrow(_ error: OpenID4VPError) throws(OpenID4VPError) -> Wrapped {
        guard let value = self else { throw error }
        return value
    }
}
