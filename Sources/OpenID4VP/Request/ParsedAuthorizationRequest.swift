import TesseraCore
import Foundation
import TesseraHTTP
import TesseraJOSE

/// `request_uri_method` (§5.1).
public enum RequestURIMethod: String, Sendable, Hashable {
    /// GET the Request Object (the default).
    case get
    /// POST `wallet_metadata` and a `wallet_nonce` to get it (§5.10.1); used only when the configuration allows.
    case post
}

/// An Authorization Request as received: the parameters the wallet will act on (from the Request Object when
/// there is one, §5.10.1) and how they arrived. Nothing is trusted yet; `resolveAuthorizationRequest`
/// authenticates the verifier and checks the rest.
public struct ParsedAuthorizationRequest: Sendable {
    /// How the request reached the wallet.
    public enum Transport: Sendable, Hashable {
        /// Parameters in the invocation URI (§5.4 option 1).
        case uriParameters
        /// `request` carried the Request Object (RFC 9101 §5.1).
        case requestObjectByValue
        /// `request_uri` referenced it (RFC 9101 §5.2), fetched with `method`.
        case requestObjectByReference(uri: URL, method: RequestURIMethod)
    }

    /// How the parameters arrived, for logs and the consent screen; whether they were signed is `isSigned`.
    public let transport: Transport
    /// The Authorization Request parameters: the Request Object claims, or the URI parameters. For a Request
    /// Object, only its claims count (§5.10.1), except that its `client_id` was checked against the URI's.
    public let parameters: JSONObject
    /// The Client Identifier, split into prefix and original value (§5.9.1).
    public let clientId: ClientIdentifier
    /// The signed Request Object, bytes as received.
    public let requestObject: CompactJWS?
    /// The `wallet_nonce` the wallet sent with `request_uri_method=post`, which the Request Object echoed.
    public let walletNonce: String?

    /// True when the parameters came from a Request Object (its signature is checked in `resolveAuthorizationRequest`).
    public var isSigned: Bool { requestObject != nil }
}

/// The media type of Request Objects (RFC 9101 §4, §10.2; OpenID4VP §5: the `typ` header value).
let requestObjectType = "oauth-authz-req+jwt"

/// Reads an invocation URI (`openid4vp://…`, `haip-vp://…`, or a wallet `https` URL, §9) and, when it references
/// a Request Object, fetches it (§5.10: `request_uri_method` `get`, or `post` with `wallet_metadata` and a fresh
/// `wallet_nonce`). Redirects are never followed (§14.8).
///
/// Checks made here are those needed before the verifier can be authenticated: the Request Object is a JWS
/// whose `typ` is `oauth-authz-req+jwt` (§5), its `client_id` equals the URI's (§5.10.1), and it echoes the
/// `wallet_nonce` sent (§5.10.1). The signature is verified by `resolveAuthorizationRequest`, per prefix.
public func parseAuthorizationRequest(
    requestUri: String, walletConfig: WalletConfiguration
) async throws(OpenID4VPError) -> ParsedAuthorizationRequest {
    let limits = walletConfig.limits
    guard requestUri.utf8.count <= limits.maxInvocationURILength else {
        throw .invalidInvocationURI("longer than \(limits.maxInvocationURILength) bytes")
    }
    guard let colon = requestUri.firstIndex(of: ":") else { throw .invalidInvocationURI("no scheme") }
    let scheme = requestUri[..<colon].lowercased()
    guard walletConfig.invocationSchemes.contains(scheme) else { throw .unsupportedInvocationScheme(scheme) }
    if scheme == "https" {
        guard URL(string: requestUri)?.host != nil else { throw .invalidInvocationURI("not an absolute https URL") }
    }
    guard let questionMark = requestUri.firstIndex(of: "?") else { throw .invalidInvocationURI("no query") }
    let queryEnd = requestUri[questionMark...].firstIndex(of: "#") ?? requestUri.endIndex
    let query = requestUri[requestUri.index(after: questionMark)..<queryEnd]
    let pairs = try FormURLEncoding.parameters(query)
    var uriParameters = JSONObject()
    for (name, value) in pairs { uriParameters[name] = .string(value) }

    guard let outerClientId = uriParameters["client_id"]?.stringValue else { throw .missingParameter("client_id") }
    let request = uriParameters["request"]?.stringValue
    let requestURI = uriParameters["request_uri"]?.stringValue
    let method = uriParameters["request_uri_method"]?.stringValue

    if request != nil && requestURI != nil { throw .requestAndRequestURIBothPresent }
    if method != nil && requestURI == nil { throw .requestURIMethodWithoutRequestURI }

    if let request {
        let jws = try RequestObjectReader.read(request, limits: limits)
        return try RequestObjectReader.parsed(
            jws, outerClientId: outerClientId, transport: .requestObjectByValue, walletNonce: nil, limits: limits)
    }
    if let requestURI {
        var uriMethod = RequestURIMethod.get
        if let method {
            guard let parsed = RequestURIMethod(rawValue: method) else { throw .invalidRequestURIMethod(method) }
            uriMethod = parsed
        }
        // §5.1: a wallet not supporting `post` sends GET.
        if uriMethod == .post && !walletConfig.usesRequestURIMethodPost { uriMethod = .get }
        let url = try walletConfig.checkContactable(requestURI, name: "request_uri")
        let clientId = ClientIdentifier(outerClientId)
        var walletNonce: String?
        let httpRequest: HTTPRequest
        switch uriMethod {
        case .get:
            httpRequest = HTTPRequest(method: .get, url: url, headers: [("Accept", "application/\(requestObjectType)")])
        case .post:
            let nonce = Base64URL.encode(walletConfig.random.bytes(16))
            walletNonce = nonce
            let metadata = JSONValue.object(walletConfig.effectiveWalletMetadata(for: clientId)).serializedString
            httpRequest = .form(url, [("wallet_metadata", metadata), ("wallet_nonce", nonce)], accept: "application/\(requestObjectType)")
        }
        let response = try await walletConfig.send(httpRequest)
        if response.isRedirect { throw .httpRedirectRejected(status: response.status) }
        guard response.status == 200 else { throw .requestURIError(status: response.status) }
        // §5.10.1 / RFC 9101 §5.2.3: the body is the Request Object, `application/oauth-authz-req+jwt`.
        let mediaType = response.mediaType
        guard mediaType == "application/\(requestObjectType)" || mediaType == "application/jwt" else {
            throw .unexpectedContentType(mediaType)
        }
        guard let text = String(validating: response.body, as: UTF8.self) else {
            throw .invalidRequestObject(.malformedCompact)
        }
        let jws = try RequestObjectReader.read(text.trimmingCharacters(in: .whitespacesAndNewlines), limits: limits)
        return try RequestObjectReader.parsed(
            jws, outerClientId: outerClientId, transport: .requestObjectByReference(uri: url, method: uriMethod),
            walletNonce: walletNonce, limits: limits)
    }
    return ParsedAuthorizationRequest(
        transport: .uriParameters, parameters: uriParameters, clientId: ClientIdentifier(outerClientId),
        requestObject: nil, walletNonce: nil)
}

enum RequestObjectReader {
    /// A compact JWS with `typ` `oauth-authz-req+jwt` (§5; RFC 7515 §4.1.9: MIME type names compare
    /// case-insensitively, with `application/` optional).
    static func read(_ text: String, limits: OpenID4VPLimits) throws(OpenID4VPError) -> CompactJWS {
        if text.utf8.lazy.filter({ $0 == UInt8(ascii: ".") }).count == 4 { throw .encryptedRequestObjectUnsupported }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(parsing: text, limits: limits.jose)
        } catch {
            throw .invalidRequestObject(error)
        }
        guard let type = jws.type else { throw .requestObjectTypeMissing }
        let normalized = type.lowercased()
        guard normalized == requestObjectType || normalized == "application/" + requestObjectType else {
            throw .requestObjectTypeInvalid(type)
        }
        return jws
    }

    static func parsed(
        _ jws: CompactJWS, outerClientId: String, transport: ParsedAuthorizationRequest.Transport, walletNonce: String?,
        limits: OpenID4VPLimits
    ) throws(OpenID4VPError) -> ParsedAuthorizationRequest {
        let claims: JSONObject
        do {
            claims = try jws.payloadJSON()
        } catch {
            throw .invalidRequestObject(error)
        }
        guard let innerClientId = claims["client_id"] else { throw .missingParameter("client_id") }
        guard let inner = innerClientId.stringValue else { throw .invalidParameter(name: "client_id", reason: "not a string") }
        // §5.10.1: identical, Client Identifier Prefix included.
        guard inner == outerClientId else { throw .clientIdMismatch(outer: outerClientId, requestObject: inner) }
        if let walletNonce {
            guard let echoed = claims["wallet_nonce"] else { throw .walletNonceMissing }
            guard let text = echoed.stringValue, ConstantTime.equal(Data(text.utf8), Data(walletNonce.utf8)) else {
                throw .walletNonceMismatch
            }
        }
        return ParsedAuthorizationRequest(
            transport: transport, parameters: claims, clientId: ClientIdentifier(inner), requestObject: jws,
            walletNonce: walletNonce)
    }
}
