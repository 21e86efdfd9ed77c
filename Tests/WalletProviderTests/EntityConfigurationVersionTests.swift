import Crypto
import Foundation
import ITWalletProtocol
import TesseraJOSE
import TesseraTrust
import Testing
import WalletInstanceKit
import X509

/// The Entity Configuration advertises every version side by side: `wallet_provider` (0.9 with its endpoints,
/// 1.0), `wallet_solution` (1.3, nested `wallet_metadata`), `openid_wallet_provider` (1.5, flat); each provider type's
/// `jwks` is the signing identity's key with its `x5c`, while the statement itself is signed by the federation key.
@Suite(.serialized)
struct EntityConfigurationVersionTests {
    @Test func everyVersionIsAdvertisedWithTheSigningIdentitysKey() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let text = String(decoding: try await fixture.request(.get, ITWalletEndpoint.entityConfiguration).body, as: UTF8.self)
        let jws = try CompactJWS(parsing: text)
        let claims = try jws.payloadJSON()
        let metadata = try #require(claims["metadata"]?.objectValue)
        #expect(ITWalletMetadata.versions(advertisedBy: metadata) == Set(ITWalletVersion.allCases))

        // The statement is signed by the top-level (federation) key, which is not the attestation key.
        let federationKeys = try #require(claims["jwks"]?["keys"]?.arrayValue)
        #expect(federationKeys.count == 1)
        let federationKey = try JWK(json: try #require(federationKeys.first?.objectValue))
        #expect(federationKey.kid == fixture.server.keyID)
        try jws.verify(with: JWSVerificationKey(jwk: federationKey))

        for type in [ITWalletMetadata.walletProvider, ITWalletMetadata.walletSolution, ITWalletMetadata.openIDWalletProvider] {
            let keys = try #require(metadata[type]?["jwks"]?["keys"]?.arrayValue, "\(type).jwks")
            #expect(keys.count == 1, "\(type)")
            let object = try #require(keys.first?.objectValue)
            let jwk = try JWK(json: object)
            #expect(jwk.kid != federationKey.kid, "\(type): the attestation key is not the federation key")
            #expect(jwk.kid == jwk.thumbprintBase64URL(), "\(type): kid is the thumbprint")
            // Its x5c validates to the signing root and certifies this very key.
            let chain = try #require(object["x5c"]?.arrayValue?.compactMap { $0.stringValue.flatMap { Data(base64Encoded: $0) } })
            let outcome = await validateX5CChain(chain, anchors: TrustAnchors([fixture.signingRoot]), at: fixture.clock.now())
            #expect(outcome.isValid, "\(type): \(outcome.failures)")
            let leaf = try #require(outcome.leaf)
            guard case .es256(let key) = try JWSVerificationKey(jwk: jwk) else { Issue.record("\(type): not P-256"); continue }
            #expect(leaf.publicKey == Certificate.PublicKey(key), "\(type)")
        }

        // 0.9 / 1.0.
        let provider = try #require(metadata[ITWalletMetadata.walletProvider]?.objectValue)
        #expect(provider["token_endpoint"]?.stringValue == fixture.server.baseURL + "/token")
        #expect(provider["nonce_endpoint"]?.stringValue == fixture.server.baseURL + "/nonce")
        #expect(provider["aal_values_supported"]?.arrayValue?.isEmpty == false)
        // 1.3: the wallet's metadata nested; 1.5: the same members flat.
        let solution = try #require(metadata[ITWalletMetadata.walletSolution]?.objectValue)
        let nested = try #require(solution["wallet_metadata"]?.objectValue)
        let flat = try #require(metadata[ITWalletMetadata.openIDWalletProvider]?.objectValue)
        #expect(solution["logo_uri"] != nil && flat["logo_uri"] != nil)
        for member in ["wallet_name", "authorization_endpoint", "credential_offer_endpoint", "response_types_supported",
                       "response_modes_supported", "vp_formats_supported", "request_object_signing_alg_values_supported",
                       "client_id_prefixes_supported"] {
            #expect(nested[member] != nil, "wallet_solution.wallet_metadata.\(member)")
            #expect(flat[member] == nested[member], "openid_wallet_provider.\(member)")
        }
        #expect(flat["wallet_name"]?.stringValue == "Tessera Wallet")
        let formats = try #require(flat["vp_formats_supported"]?.objectValue)
        #expect(formats["dc+sd-jwt"] != nil && formats["mso_mdoc"] != nil, "1.5 requires both formats")
        #expect(flat["client_id_prefixes_supported"] == ["openid_federation", "x509_hash"])

        let entity = try #require(metadata[ITWalletMetadata.federationEntity]?.objectValue)
        #expect(entity["contacts"] == ["wallet-provider@tessera.invalid"])
        #expect(entity["organization_uri"] == entity["homepage_uri"])
        #expect(entity["organization_uri"]?.stringValue == "https://tessera.invalid")

        // The wallet reads the attestation key from wallet_provider, the statement key from the top level.
        let read = try ProviderMetadata(entityConfiguration: text, expectedEntityID: fixture.server.baseURL, at: fixture.clock.now())
        #expect(read.keys.map(\.kid) == [federationKey.kid])
        #expect(read.attestationKeys.map(\.kid) == [fixture.signingKeyID])
    }

    @Test func aWalletRefusesAProviderWithoutAttestationKeys() throws {
        let privateKey = P256.Signing.PrivateKey()
        let plain = JWK(publicKey: privateKey.publicKey)
        let jwk = plain.with(kid: plain.thumbprintBase64URL())
        let claims: JSONObject = [
            "iss": "https://wp.example", "sub": "https://wp.example", "iat": 1_000, "exp": 9_999_999_999,
            "jwks": ["keys": [.object(jwk.jsonObject)]],
            "metadata": ["wallet_provider": ["token_endpoint": "https://wp.example/token", "nonce_endpoint": "https://wp.example/nonce"]],
        ]
        let header: JSONObject = ["typ": "entity-statement+jwt", "kid": .string(jwk.kid ?? "")]
        let jwt = try CompactJWS.sign(header: header, claims: claims, key: .es256(privateKey)).compact
        #expect(throws: WalletInstanceError.self) {
            try ProviderMetadata(entityConfiguration: jwt, expectedEntityID: "https://wp.example", at: Date(timeIntervalSince1970: 2_000))
        }
    }
}
