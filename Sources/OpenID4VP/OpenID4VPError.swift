import Foundation
import TesseraJOSE

/// Every rule of OpenID for Verifiable Presentations 1.0 (and the RFCs it builds on) this module enforces, one
/// case each; the doc comment names the section. `errorCode` gives the §8.5 error code a wallet would send, when
/// it may send one at all (see `errorResponseDestination(for:walletConfig:)`). Descriptions never carry nonces,
/// keys or credential contents.
public enum OpenID4VPError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: Invocation (§9) and request parameters in the URI (RFC 6749 §3.1)

    /// The invocation URI is not a URI with a query, or is longer than the limit (§9).
    case invalidInvocationURI(String)
    /// The invocation URI's scheme is not one the wallet answers to (§9; HAIP §5.1 `haip-vp`).
    case unsupportedInvocationScheme(String)
    /// The query (or a form body) is not `application/x-www-form-urlencoded` UTF-8 (RFC 6749 Appendix B).
    case malformedParameters(String)
    /// A parameter is given twice (RFC 6749 §3.1: parameters MUST NOT be included more than once).
    case duplicateParameter(String)
    /// A required parameter is absent.
    case missingParameter(String)
    /// A parameter has the wrong type or an invalid value.
    case invalidParameter(name: String, reason: String)
    /// Both `request` and `request_uri` are present (RFC 9101 §5).
    case requestAndRequestURIBothPresent
    /// `request_uri_method` without `request_uri` (§5.1).
    case requestURIMethodWithoutRequestURI
    /// `request_uri_method` is neither `get` nor `post` (§5.1, §8.5 `invalid_request_uri_method`).
    case invalidRequestURIMethod(String)
    /// A URI the wallet sends data to or fetches from is not `https` (§5.10, §8.2, §14.7 TLS).
    case insecureURI(name: String)

    // MARK: HTTP (§5.10, §8.2, §14.8)

    /// The verifier answered with an HTTP redirect; the wallet never follows them (§14.8 HTTP Redirects).
    case httpRedirectRejected(status: Int)
    /// The Request URI answered with an HTTP error (§5.10.2: the wallet terminates the process).
    case requestURIError(status: Int)
    /// The HTTP exchange itself failed (connection, TLS, timeout).
    case httpTransport(String)
    /// The HTTP response body exceeds the configured limit.
    case httpResponseTooLarge(limit: Int)
    /// The Request URI response has a content type other than `application/oauth-authz-req+jwt` (§5.10.1).
    case unexpectedContentType(String?)

    // MARK: Request Object (§5, RFC 9101)

    /// The Request Object is not a valid compact JWS.
    case invalidRequestObject(JOSEError)
    /// The Request Object is encrypted (a JWE); this wallet does not publish request encryption keys (§5.10).
    case encryptedRequestObjectUnsupported
    /// The Request Object has no `typ` header (§5: Wallets MUST NOT process it).
    case requestObjectTypeMissing
    /// The Request Object's `typ` is not `oauth-authz-req+jwt` (§5).
    case requestObjectTypeInvalid(String)
    /// The Request Object's signature does not verify with the key the Client Identifier Prefix designates
    /// (§5.9.3).
    case requestSignatureInvalid(JOSEError)
    /// The `client_id` of the request and of the Request Object differ (§5.10.1: MUST be identical, prefix
    /// included).
    case clientIdMismatch(outer: String, requestObject: String)
    /// The wallet sent a `wallet_nonce` but the Request Object has none (§5.10.1).
    case walletNonceMissing
    /// The Request Object's `wallet_nonce` is not the one the wallet sent (§5.10.1).
    case walletNonceMismatch

    // MARK: Authorization Request parameters (§5.1–5.3)

    /// `nonce` is absent (§5.2: REQUIRED).
    case missingNonce
    /// `nonce` holds characters outside the ASCII URL-safe set (§5.2).
    case invalidNonce
    /// `state` holds characters outside the ASCII URL-safe set (§5.2).
    case invalidState
    /// `response_type` is not `vp_token` (§5.6; HAIP §5).
    case unsupportedResponseType(String)
    /// A `response_mode` this wallet does not implement for this invocation (§5.2, §8.2, §8.3.1).
    case unsupportedResponseMode(String)
    /// `response_uri` is absent with Response Mode `direct_post` / `direct_post.jwt` (§8.2: REQUIRED).
    case missingResponseURI
    /// No `redirect_uri` for a redirect-based Response Mode (RFC 6749 §3.1.2).
    case missingRedirectURI
    /// `redirect_uri` is present with Response Mode `direct_post` (§8.2: the wallet MUST answer
    /// `invalid_request`).
    case redirectURIWithDirectPost
    /// Both `dcql_query` and `scope` are present (§5.1, §8.5 `invalid_request`).
    case dcqlQueryAndScope
    /// Neither `dcql_query` nor a `scope` representing one (§5.1, §8.5 `invalid_request`).
    case missingDCQLQuery
    /// A `scope` value the wallet does not map to a DCQL query (§5.5).
    case unsupportedScope(String)
    /// The DCQL query violates §6 (the reason names the rule).
    case invalidDCQLQuery(String)
    /// `client_metadata` is malformed (§5.1, §11).
    case invalidClientMetadata(String)
    /// The verifier supports none of the wallet's credential formats (§8.5 `vp_formats_not_supported`).
    case vpFormatsNotSupported

    // MARK: Client Identifier Prefixes (§5.9)

    /// The prefix is unknown, reserved (`origin`), or not supported by this wallet (§5.9.3, §8.5).
    case unsupportedClientIdPrefix(String)
    /// A Client Identifier without a known prefix that the wallet has not pre-registered (§5.9.2).
    case unknownClient(String)
    /// The Client Identifier does not belong to its prefix (§5.9.3, §8.5 `invalid_request`).
    case invalidClientId(String)
    /// `client_metadata` is present although the wallet holds pre-registered metadata (§8.5 `invalid_client`).
    case clientMetadataWithPreRegisteredClient
    /// The prefix requires a signed Request Object, but the request is unsigned (§5.9.3).
    case unsignedRequestNotAllowed(prefix: String)
    /// The `redirect_uri` prefix cannot be used with signed requests (§5.9.3).
    case signedRequestNotAllowed(prefix: String)
    /// The `response_uri` / `redirect_uri` is not one this Client Identifier may use (§5.9.3, §14.3.1).
    case responseURINotAllowed(String)
    /// The verifier's `x5c` chain does not validate to a trusted anchor (§5.9.3 `x509_san_dns`, `x509_hash`).
    case verifierCertificateUntrusted([String])
    /// The `x5c` header is absent or unusable (§5.9.3).
    case invalidVerifierCertificate(String)
    /// No `dNSName` SAN of the leaf certificate equals the Client Identifier (§5.9.3 `x509_san_dns`).
    case x509SANMismatch(String)
    /// The leaf certificate's SHA-256 hash is not the Client Identifier (§5.9.3 `x509_hash`).
    case x509HashMismatch
    /// The Verifier Attestation JWT is absent, malformed, expired or does not bind the client (§12).
    case invalidVerifierAttestation(String)
    /// The Verifier Attestation JWT's `iss` is not an issuer the wallet trusts (§5.9.3: MUST refuse).
    case untrustedVerifierAttestationIssuer(String)
    /// The DID, its key or the `kid` does not resolve (§5.9.3 `decentralized_identifier`).
    case invalidDecentralizedIdentifier(String)
    /// A DID method the wallet cannot resolve (§5.9.3).
    case unsupportedDIDMethod(String)

    // MARK: Transaction data (§5.1, §8.4, B.3.3)

    /// A `transaction_data` type the wallet does not support (§5.1: MUST return an error;
    /// §8.5 `invalid_transaction_data`).
    case unsupportedTransactionDataType(String)
    /// A `transaction_data` entry is malformed or does not fit the query (§8.5 `invalid_transaction_data`).
    case invalidTransactionData(String)

    // MARK: Credential selection (§6.4)

    /// The wallet cannot deliver every required Credential (§6.4.2: it MUST NOT return any; §8.5
    /// `access_denied`).
    case requiredCredentialsUnavailable
    /// The End-User's selection does not fit the query (a credential that is no candidate, two for a query
    /// without `multiple`, a partial credential set option …).
    case invalidSelection(String)

    // MARK: Response (§8)

    /// No key in the verifier's `jwks` can encrypt the response (§8.3: `use` enc or absent, `alg` ECDH-ES,
    /// EC P-256/384/521, a `kid`).
    case noUsableEncryptionKey
    /// None of the verifier's `encrypted_response_enc_values_supported` is one the wallet implements (§8.3).
    case unsupportedResponseEncryption([String])
    /// Building a presentation failed (signing, encoding).
    case presentationFailed(String)
    /// The Response URI's answer is not the JSON object §8.2 describes.
    case invalidResponseURIResponse(String)
    /// An error response may only go to a verifier whose request was authenticated (§8.5, §14).
    case errorResponseNotAllowed

    // MARK: Verifier side (§8.6)

    /// The Authorization Response received at the Response URI is malformed (§8.1, §8.2, §8.3).
    case invalidAuthorizationResponse(String)
    /// The VP Token does not satisfy the request (§8.1, §8.6, §6.4).
    case invalidVPToken(String)
    /// A presentation does not verify (signature, binding to `client_id` and `nonce`, §14.1.2).
    case invalidPresentation(queryId: String, reason: String)
}

extension OpenID4VPError {
    /// The §8.5 (RFC 6749 §4.1.2.1) error code that names this failure.
    public var errorCode: AuthorizationErrorCode {
        switch self {
        case .invalidRequestURIMethod: return .invalidRequestURIMethod
        case .unsupportedTransactionDataType, .invalidTransactionData: return .invalidTransactionData
        case .requiredCredentialsUnavailable: return .accessDenied
        case .clientMetadataWithPreRegisteredClient, .unknownClient: return .invalidClient
        case .vpFormatsNotSupported: return .vpFormatsNotSupported
        case .unsupportedScope: return .invalidScope
        // The wallet's own failure to build its answer (RFC 6749 §4.1.2.1).
        case .presentationFailed: return .serverError
        default: return .invalidRequest
        }
    }

    /// The failure in one line, led by the section it breaks. No nonce, key or credential content appears in it.
    public var description: String {
        switch self {
        case .invalidInvocationURI(let reason): return "§9: invalid invocation URI (\(reason))"
        case .unsupportedInvocationScheme(let scheme): return "§9: unsupported invocation scheme \"\(scheme)\""
        case .malformedParameters(let reason): return "RFC 6749 App. B: malformed parameters (\(reason))"
        case .duplicateParameter(let name): return "RFC 6749 §3.1: parameter \(name) appears more than once"
        case .missingParameter(let name): return "missing parameter \(name)"
        case .invalidParameter(let name, let reason): return "invalid parameter \(name) (\(reason))"
        case .requestAndRequestURIBothPresent: return "RFC 9101 §5: both request and request_uri"
        case .requestURIMethodWithoutRequestURI: return "§5.1: request_uri_method without request_uri"
        case .invalidRequestURIMethod(let method): return "§5.1: request_uri_method \"\(method)\" is neither get nor post"
        case .insecureURI(let name): return "§14.7: \(name) is not an https URI"
        case .httpRedirectRejected(let status): return "§14.8: HTTP redirect (\(status)) not followed"
        case .requestURIError(let status): return "§5.10.2: Request URI answered HTTP \(status)"
        case .httpTransport(let reason): return "HTTP exchange failed (\(reason))"
        case .httpResponseTooLarge(let limit): return "HTTP response body exceeds \(limit) bytes"
        case .unexpectedContentType(let type):
            return "§5.10.1: Request URI content type \(type.map { "\"\($0)\"" } ?? "absent") is not application/oauth-authz-req+jwt"
        case .invalidRequestObject(let error): return "RFC 9101: Request Object is not a compact JWS (\(error))"
        case .encryptedRequestObjectUnsupported: return "§5.10: encrypted Request Objects are not supported"
        case .requestObjectTypeMissing: return "§5: Request Object has no typ header"
        case .requestObjectTypeInvalid(let typ): return "§5: Request Object typ \"\(typ)\" is not oauth-authz-req+jwt"
        case .requestSignatureInvalid(let error): return "§5.9.3: Request Object signature invalid (\(error))"
        case .clientIdMismatch: return "§5.10.1: client_id of the request and of the Request Object differ"
        case .walletNonceMissing: return "§5.10.1: Request Object lacks the wallet_nonce the wallet sent"
        case .walletNonceMismatch: return "§5.10.1: Request Object wallet_nonce differs from the one sent"
        case .missingNonce: return "§5.2: nonce is missing"
        case .invalidNonce: return "§5.2: nonce holds characters outside the URL-safe set"
        case .invalidState: return "§5.2: state holds characters outside the URL-safe set"
        case .unsupportedResponseType(let type): return "§5.6: unsupported response_type \"\(type)\""
        case .unsupportedResponseMode(let mode): return "§8: unsupported response_mode \"\(mode)\""
        case .missingResponseURI: return "§8.2: response_uri is required with direct_post"
        case .missingRedirectURI: return "RFC 6749 §3.1.2: redirect_uri is required"
        case .redirectURIWithDirectPost: return "§8.2: redirect_uri must not be present with direct_post"
        case .dcqlQueryAndScope: return "§5.1: both dcql_query and scope"
        case .missingDCQLQuery: return "§5.1: neither dcql_query nor a DCQL scope"
        case .unsupportedScope(let scope): return "§5.5: scope \"\(scope)\" is not a known DCQL alias"
        case .invalidDCQLQuery(let reason): return "§6: invalid DCQL query (\(reason))"
        case .invalidClientMetadata(let reason): return "§5.1: invalid client_metadata (\(reason))"
        case .vpFormatsNotSupported: return "§8.5: no credential format in common with the verifier"
        case .unsupportedClientIdPrefix(let prefix): return "§5.9.3: unsupported Client Identifier Prefix \"\(prefix)\""
        case .unknownClient(let id): return "§5.9.2: client \"\(id)\" is not pre-registered"
        case .invalidClientId(let reason): return "§5.9.3: invalid Client Identifier (\(reason))"
        case .clientMetadataWithPreRegisteredClient: return "§8.5: client_metadata sent by a pre-registered client"
        case .unsignedRequestNotAllowed(let prefix): return "§5.9.3: prefix \(prefix) requires a signed request"
        case .signedRequestNotAllowed(let prefix): return "§5.9.3: prefix \(prefix) cannot be used with signed requests"
        case .responseURINotAllowed(let reason): return "§5.9.3: response destination not allowed (\(reason))"
        case .verifierCertificateUntrusted(let failures):
            return "§5.9.3: verifier certificate chain untrusted: " + failures.joined(separator: "; ")
        case .invalidVerifierCertificate(let reason): return "§5.9.3: invalid verifier certificate (\(reason))"
        case .x509SANMismatch(let name): return "§5.9.3: no dNSName SAN equals \"\(name)\""
        case .x509HashMismatch: return "§5.9.3: leaf certificate hash differs from the x509_hash Client Identifier"
        case .invalidVerifierAttestation(let reason): return "§12: invalid Verifier Attestation JWT (\(reason))"
        case .untrustedVerifierAttestationIssuer(let iss): return "§5.9.3: untrusted Verifier Attestation issuer \"\(iss)\""
        case .invalidDecentralizedIdentifier(let reason): return "§5.9.3: invalid decentralized identifier (\(reason))"
        case .unsupportedDIDMethod(let method): return "§5.9.3: unsupported DID method \"\(method)\""
        case .unsupportedTransactionDataType(let type): return "§5.1: unsupported transaction data type \"\(type)\""
        case .invalidTransactionData(let reason): return "§8.4: invalid transaction data (\(reason))"
        case .requiredCredentialsUnavailable: return "§6.4.2: the wallet cannot deliver every required credential"
        case .invalidSelection(let reason): return "§6.4: invalid credential selection (\(reason))"
        case .noUsableEncryptionKey: return "§8.3: no usable response encryption key in client metadata"
        case .unsupportedResponseEncryption(let values): return "§8.3: no supported enc among \(values)"
        case .presentationFailed(let reason): return "building a presentation failed (\(reason))"
        case .invalidResponseURIResponse(let reason): return "§8.2: invalid Response URI answer (\(reason))"
        case .errorResponseNotAllowed: return "§8.5: error responses go only to authenticated verifiers"
        case .invalidAuthorizationResponse(let reason): return "§8: invalid Authorization Response (\(reason))"
        case .invalidVPToken(let reason): return "§8.1: invalid vp_token (\(reason))"
        case .invalidPresentation(let queryId, let reason): return "§8.6: presentation for \(queryId) invalid (\(reason))"
        }
    }
}

/// Error codes of the Authorization Error Response (RFC 6749 §4.1.2.1 and OpenID4VP §8.5). Open: a verifier may
/// receive codes defined elsewhere.
public struct AuthorizationErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as it appears in the `error` parameter.
    public let rawValue: String
    /// Any code, including ones this module does not name; check `isWellFormed` before sending one.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `invalid_request`: a parameter is missing, invalid, repeated or otherwise malformed (RFC 6749 §4.1.2.1).
    public static let invalidRequest = AuthorizationErrorCode(rawValue: "invalid_request")
    /// `unauthorized_client`: the client may not make this request (RFC 6749 §4.1.2.1).
    public static let unauthorizedClient = AuthorizationErrorCode(rawValue: "unauthorized_client")
    /// `invalid_client`: `client_metadata` sent by a client whose metadata the wallet already holds (§8.5).
    public static let invalidClient = AuthorizationErrorCode(rawValue: "invalid_client")
    /// `invalid_scope`: the scope is invalid, unknown or malformed (RFC 6749 §4.1.2.1).
    public static let invalidScope = AuthorizationErrorCode(rawValue: "invalid_scope")
    /// `access_denied`: the End-User refused, or the wallet has no credential fulfilling the query (§8.5).
    public static let accessDenied = AuthorizationErrorCode(rawValue: "access_denied")
    /// `unsupported_response_type` (RFC 6749 §4.1.2.1).
    public static let unsupportedResponseType = AuthorizationErrorCode(rawValue: "unsupported_response_type")
    /// `server_error`: the wallet failed to build its answer (RFC 6749 §4.1.2.1).
    public static let serverError = AuthorizationErrorCode(rawValue: "server_error")
    /// `temporarily_unavailable` (RFC 6749 §4.1.2.1).
    public static let temporarilyUnavailable = AuthorizationErrorCode(rawValue: "temporarily_unavailable")
    /// `vp_formats_not_supported`: the wallet supports none of the formats the verifier asked for (§8.5).
    public static let vpFormatsNotSupported = AuthorizationErrorCode(rawValue: "vp_formats_not_supported")
    /// `invalid_request_uri_method`: `request_uri_method` is neither `get` nor `post` (§8.5).
    public static let invalidRequestURIMethod = AuthorizationErrorCode(rawValue: "invalid_request_uri_method")
    /// `invalid_transaction_data`: transaction data of an unknown type or that does not fit the query (§8.5).
    public static let invalidTransactionData = AuthorizationErrorCode(rawValue: "invalid_transaction_data")
    /// `wallet_unavailable`: the wallet could not be reached to answer (§8.5); sent by the platform, not this module.
    public static let walletUnavailable = AuthorizationErrorCode(rawValue: "wallet_unavailable")

    /// RFC 6749 §4.1.2.1: `error` holds only %x20-21 / %x23-5B / %x5D-7E.
    public var isWellFormed: Bool {
        !rawValue.isEmpty && rawValue.utf8.allSatisfy(ErrorText.isAllowed)
    }

    /// `rawValue`.
    public var description: String { rawValue }
}

/// RFC 6749 §4.1.2.1 character rules for `error` and `error_description`.
enum ErrorText {
    static func isAllowed(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) && byte != 0x22 && byte != 0x5C
    }

    /// `text` reduced to the allowed characters: `§` becomes "Section ", quotes become `'`, others are dropped.
    static func sanitized(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar == "§" {
                out += "Section "
            } else if scalar == "\"" || scalar == "\\" {
                out += "'"
            } else if scalar.isASCII, isAllowed(UInt8(scalar.value)) {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
