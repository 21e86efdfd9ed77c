import Foundation
import ServiceSupport
import TesseraJOSE

/// The Wallet Attestation (IT-Wallet v0.9): a `wallet-attestation+jwt` signed by the provider, bound to the
/// wallet's ephemeral key (`cnf.jwk`, `sub` = its thumbprint), valid at most 24 hours, with the wallet's
/// authorization-server-like metadata that relying parties read.
enum WalletAttestation {
    static let type = "wallet-attestation+jwt"
    /// The `typ` of the 1.0 `jwt` format (OAuth 2.0 Attestation-Based Client Authentication).
    static let clientAttestationType = "oauth-client-attestation+jwt"
    static let mediaType = "application/jwt"

    static func sign(
        key: ProviderKey, type: String = type, issuer: String, ephemeralKey: JWK, aal: String, now: Date, lifetime: TimeInterval
    ) throws(WireError) -> String {
        let claims: JSONObject = [
            "iss": .string(issuer),
            "sub": .string(ephemeralKey.thumbprintBase64URL()),
            "aal": .string(aal),
            "cnf": ["jwk": .object(ephemeralKey.jsonObject)],
            "authorization_endpoint": "eudiw:",
            "response_types_supported": ["vp_token"],
            "response_modes_supported": ["form_post.jwt"],
            "vp_formats_supported": [
                "dc+sd-jwt": ["sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]],
                "mso_mdoc": ["alg": ["ES256"]],
            ],
            "request_object_signing_alg_values_supported": ["ES256"],
            "presentation_definition_uri_supported": false,
            "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.addingTimeInterval(min(lifetime, 86_400)).timeIntervalSince1970)),
        ]
        let header: JSONObject = ["typ": .string(type), "kid": .string(key.kid)]
        do {
            return try CompactJWS.sign(header: header, claims: claims, key: key.signingKey).compact
        } catch {
            throw WireError.server
        }
    }
}
