import Crypto
import Foundation
import TesseraHTTP
import TesseraCore
import TesseraJOSE

/// Verifier-side construction of what the wallet parses: Request Objects, invocation URIs and Client
/// Identifiers.
public enum VerifierRequests {
    /// A signed Request Object (§5, RFC 9101): header `typ` `oauth-authz-req+jwt`, `x5c` (standard base64 DER,
    /// leaf first, without the trust anchor — HAIP §5) when given, `kid` when given; claims from the request.
    public static func signRequestObject(
        _ request: AuthorizationRequest, key: JWSSigningKey, x5c: [Data]? = nil, kid: String? = nil,
        audience: String = "https://self-issued.me/v2", extraHeader: JSONObject = JSONObject(),
        extraClaims: JSONObject = JSONObject()
    ) throws(OpenID4VPError) -> String {
        var header = JSONObject()
        header["typ"] = .string(requestObjectType)
        if let kid { header["kid"] = .string(kid) }
        if let x5c { header["x5c"] = .array(x5c.map { .string($0.base64EncodedString()) }) }
        for member in extraHeader { header[member.key] = member.value }
        do {
            var claims = request.requestObjectClaims(audience: audience)
            for member in extraClaims where claims[member.key] == nil { claims[member.key] = member.value }
            return try CompactJWS.sign(header: header, claims: claims, key: key).compact
        } catch {
            throw .presentationFailed("signing the Request Object: \(error)")
        }
    }

    /// An invocation URI referencing a Request Object (§5.4 option 3): `client_id`, `request_uri` and, when
    /// given, `request_uri_method`.
    public static func invocationURI(
        scheme: String = "openid4vp", clientId: String, requestURI: String, method: RequestURIMethod? = nil
    ) -> String {
        var pairs = [("client_id", clientId), ("request_uri", requestURI)]
        if let method { pairs.append(("request_uri_method", method.rawValue)) }
        return "\(scheme)://?" + FormURLEncoding.encode(pairs)
    }

    /// An invocation URI carrying a Request Object by value (§5.4 option 2).
    public static func invocationURI(scheme: String = "openid4vp", clientId: String, requestObject: String) -> String {
        "\(scheme)://?" + FormURLEncoding.encode([("client_id", clientId), ("request", requestObject)])
    }

    /// An invocation URI carrying the parameters themselves (§5.4 option 1).
    public static func invocationURI(scheme: String = "openid4vp", request: AuthorizationRequest) -> String {
        "\(scheme)://?" + FormURLEncoding.encode(request.uriParameters)
    }

    /// `x509_hash:<base64url(SHA-256(DER))>` for the leaf certificate (§5.9.3).
    public static func x509HashClientId(leafCertificateDER: Data) -> String {
        ClientIdPrefix.x509Hash.rawValue + ":" + Base64URL.encode(SHA256.hash(data: leafCertificateDER))
    }

    /// A fresh `nonce` / `state` value: 16 random bytes as base64url (§5.2, §13.3: at least 128 bits).
    public static func freshValue(random: any RandomSource) -> String {
        Base64URL.encode(random.bytes(16))
    }
}

