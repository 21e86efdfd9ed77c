import Foundation
import TesseraHTTP
import TesseraJOSE

/// What happened to a submitted response.
public enum SubmissionResult: Sendable, Equatable {
    /// The Response URI accepted it (HTTP 200, §8.2). When `redirectURI` is present the wallet MUST send the
    /// user agent there (§8.2; HAIP §5.1 same-device flow).
    case success(redirectURI: URL?, responseBody: JSONObject?)
    /// The Response URI answered with an error object.
    case error(error: String, errorDescription: String?)
    /// `fragment` / `query`: the wallet sends the user agent to this URI, which carries the response.
    case redirect(URL)
}

/// Sends the response as the Response Mode requires (§8.2, §8.3.1, §5.6): `direct_post` as a form POST,
/// `direct_post.jwt` as `response=<JWE>` (ECDH-ES to the key chosen at resolution, `kid` echoed, `enc` as
/// chosen), `fragment` / `query` as a redirect URI. An HTTP 3xx from the Response URI is an error (§14.8).
///
/// - Parameters:
///   - resolvedRequest: The request answered: it gives the destination, the encryption key and `enc`, and whether
///     the verifier authenticated.
///   - response: The presentations from `createAuthorizationResponse`, or an error response; an error goes only to
///     an authenticated verifier (`errorResponseNotAllowed` otherwise, §8.5).
///   - responseMode: nil to use the request's. The only other value accepted is `direct_post` for an
///     error response to a `direct_post.jwt` request (§8.3.1: a wallet unable to encrypt MAY send the error
///     unencrypted).
///   - walletConfig: The HTTP client, the randomness of the response JWE, and the limits on the verifier's answer.
public func submitAuthorizationResponse(
    resolvedRequest: ResolvedAuthorizationRequest, response: AuthorizationResponse, responseMode: ResponseMode? = nil,
    walletConfig: WalletConfiguration
) async throws(OpenID4VPError) -> SubmissionResult {
    var destination = resolvedRequest.destination
    if let responseMode, responseMode != destination.responseMode {
        guard case .error = response, responseMode == .directPost, destination.responseMode == .directPostJWT else {
            throw .unsupportedResponseMode(responseMode.rawValue)
        }
        destination = ResponseDestination(responseMode: .directPost, uri: destination.uri, encryption: nil, state: destination.state)
    }
    if case .error = response, !resolvedRequest.verifier.isAuthenticated { throw .errorResponseNotAllowed }
    return try await ResponseDelivery.deliver(response, to: destination, config: walletConfig)
}

/// Sends an error response for a request that could not be resolved, to the destination
/// `errorResponseDestination(for:walletConfig:)` returned (it returns nil when the wallet must stay silent).
public func submitErrorResponse(
    _ error: AuthorizationErrorResponse, destination: ResponseDestination, walletConfig: WalletConfiguration
) async throws(OpenID4VPError) -> SubmissionResult {
    var error = error
    if error.state == nil { error.state = destination.state }
    return try await ResponseDelivery.deliver(.error(error), to: destination, config: walletConfig)
}

enum ResponseDelivery {
    static func deliver(
        _ response: AuthorizationResponse, to destination: ResponseDestination, config: WalletConfiguration
    ) async throws(OpenID4VPError) -> SubmissionResult {
        switch destination.responseMode {
        case .directPost:
            return try await post(response.formParameters, to: destination.uri, config: config)
        case .directPostJWT:
            guard let encryption = destination.encryption else { throw .noUsableEncryptionKey }
            let jwe: CompactJWE
            do {
                jwe = try CompactJWE.encrypt(
                    response.parameters.serialized(), to: encryption.key, enc: encryption.enc, kid: encryption.key.kid,
                    random: config.random)
            } catch {
                throw .presentationFailed("response encryption: \(error)")
            }
            return try await post([("response", jwe.compact)], to: destination.uri, config: config)
        case .fragment, .query:
            return .redirect(try redirect(response, to: destination))
        }
    }

    /// §8.2: form POST; 200 with a JSON object (optional `redirect_uri`) is success.
    static func post(_ pairs: [(String, String)], to uri: String, config: WalletConfiguration) async throws(OpenID4VPError) -> SubmissionResult {
        let url = try config.checkContactable(uri, name: "response_uri")
        let response = try await config.send(.form(url, pairs, accept: "application/json"))
        if response.isRedirect { throw .httpRedirectRejected(status: response.status) }
        let body = response.body.isEmpty ? nil : (try? JSONValue.parse(response.body, limits: config.limits.json))?.objectValue
        guard response.status == 200 else {
            if let error = body?["error"]?.stringValue {
                return .error(error: error, errorDescription: body?["error_description"]?.stringValue)
            }
            throw .invalidResponseURIResponse("HTTP \(response.status) without an error object")
        }
        var redirectURI: URL?
        if let value = body?["redirect_uri"] {
            guard let text = value.stringValue, let url = URL(string: text), url.scheme != nil else {
                throw .invalidResponseURIResponse("redirect_uri is not an absolute URI")
            }
            redirectURI = url
        }
        return .success(redirectURI: redirectURI, responseBody: body)
    }

    /// `fragment`: parameters in the fragment; `query`: appended to the query (OAuth 2.0 Multiple Response
    /// Type Encoding Practices §2.1).
    static func redirect(_ response: AuthorizationResponse, to destination: ResponseDestination) throws(OpenID4VPError) -> URL {
        let uri = destination.uri
        guard !uri.contains("#") else { throw .invalidParameter(name: "redirect_uri", reason: "contains a fragment") }
        let encoded = FormURLEncoding.encode(response.formParameters)
        let text: String
        if destination.responseMode == .fragment {
            text = uri + "#" + encoded
        } else {
            text = uri + (uri.contains("?") ? "&" : "?") + encoded
        }
        guard let url = URL(string: text) else { throw .invalidParameter(name: "redirect_uri", reason: "not a URI") }
        return url
    }
}
