import ITWalletProtocol
import TesseraJOSE

/// The Entity Configuration's `metadata`: one provider entity type per IT-Wallet generation, side by side, so a
/// wallet of any version finds its own and `ITWalletMetadata.versions(advertisedBy:)` reads all four back.
///
/// - `wallet_provider` (0.9 `wallet-solution.rst`, 1.0 `wallet-provider-metadata.rst`): `jwks`, the 0.9 endpoints
///   (`token_endpoint`, `nonce_endpoint`, their grant and client authentication), `aal_values_supported`.
/// - `wallet_solution` (1.3 `wallet-solution-metadata`): `jwks`, `logo_uri`, the wallet's metadata nested in
///   `wallet_metadata`.
/// - `openid_wallet_provider` (1.5.0 §9.1.7): the same members flat.
/// - `federation_entity` (OpenID Federation §5.2.2): `homepage_uri` (0.9–1.3) and `organization_uri` (the 1.5
///   example) carry the same configured address; `contacts` when configured.
///
/// Every provider entity type's `jwks` is the signing identity's key with its `x5c`: what attestations and status
/// lists are signed with. The federation key (the Entity Configuration's top-level `jwks`) signs only statements.
enum EntityMetadata {
    static func object(configuration: WalletProviderConfiguration, baseURL: String) -> JSONObject {
        let jwks: JSONValue = ["keys": [.object(configuration.signingIdentity.publicJWK.jsonObject)]]
        let wallet = walletMetadata(configuration.walletSolution)
        let logo = JSONValue.string(configuration.organization.logoURI)
        var flat: JSONObject = ["jwks": jwks, "logo_uri": logo]
        for (name, value) in wallet { flat[name] = value }
        return [
            ITWalletMetadata.walletProvider: [
                "jwks": jwks,
                "token_endpoint": .string(baseURL + ITWalletEndpoint.attestation(.v0_9)),
                "nonce_endpoint": .string(baseURL + ITWalletEndpoint.nonce),
                "aal_values_supported": [.string(configuration.aal)],
                "grant_types_supported": [.string(WalletAttestationRequest.grantType)],
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
            ],
            ITWalletMetadata.walletSolution: ["jwks": jwks, "logo_uri": logo, "wallet_metadata": .object(wallet)],
            ITWalletMetadata.openIDWalletProvider: .object(flat),
            ITWalletMetadata.federationEntity: .object(federationEntity(configuration.organization)),
        ]
    }

    /// The Wallet Solution as an OpenID4VP wallet (1.3 `wallet_metadata`, 1.5 flat members): its invocation
    /// endpoints, `vp_token` in the response modes Tessera's wallet answers with (OpenID4VP 1.0 §8.2, §8.3), the
    /// formats it presents (OpenID4VP 1.0 Appendix B: `dc+sd-jwt` and `mso_mdoc`, both required by 1.5) and the
    /// Client Identifier Prefixes the texts recommend.
    static func walletMetadata(_ solution: WalletProviderConfiguration.WalletSolution) -> JSONObject {
        [
            "wallet_name": .string(solution.name),
            "authorization_endpoint": .string(solution.authorizationEndpoint),
            "credential_offer_endpoint": .string(solution.credentialOfferEndpoint),
            "response_types_supported": ["vp_token"],
            "response_modes_supported": ["direct_post", "direct_post.jwt"],
            "vp_formats_supported": [
                "dc+sd-jwt": ["sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"]],
                // COSE algorithm identifiers: -7 = ES256 (RFC 9053 §2.1).
                "mso_mdoc": ["issuerauth_alg_values": [-7], "deviceauth_alg_values": [-7]],
            ],
            "request_object_signing_alg_values_supported": ["ES256"],
            "client_id_prefixes_supported": ["openid_federation", "x509_hash"],
        ]
    }

    static func federationEntity(_ organization: WalletProviderConfiguration.Organization) -> JSONObject {
        var entity: JSONObject = [
            "organization_name": .string(organization.organizationName),
            "homepage_uri": .string(organization.homepageURI),
            "organization_uri": .string(organization.homepageURI),
            "tos_uri": .string(organization.tosURI),
            "policy_uri": .string(organization.policyURI),
            "logo_uri": .string(organization.logoURI),
        ]
        if !organization.contacts.isEmpty { entity["contacts"] = .array(organization.contacts.map { .string($0) }) }
        return entity
    }
}
