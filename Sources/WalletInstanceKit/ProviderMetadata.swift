import Foundation
import TesseraJOSE

/// A Wallet Provider as the wallet trusts it after the federation check (IT-Wallet "Wallet Provider metadata"):
/// its Entity Configuration is an `entity-statement+jwt` signed by one of its own `jwks` keys, `iss == sub ==`
/// the provider's URL, current, and carries `metadata.wallet_provider` with the endpoints and the attestation keys.
public struct ProviderMetadata: Sendable {
    /// The provider's entity identifier (`iss` = `sub` of its Entity Configuration), its base URL.
    public let entityID: String
    /// `metadata.wallet_provider.token_endpoint`, where Wallet Attestations are requested.
    public let tokenEndpoint: URL
    /// `metadata.wallet_provider.nonce_endpoint`, where each registration and attestation request gets its challenge.
    public let nonceEndpoint: URL
    /// The provider's federation keys (the top-level `jwks`): they sign its Entity Statements.
    public let keys: [JWK]
    /// `metadata.wallet_provider.jwks`: the keys its Wallet Attestations are signed with (each with its `x5c`).
    public let attestationKeys: [JWK]

    /// Checks the Entity Configuration `jwt` fetched from `expectedEntityID`: `typ`, self-signature by a key of its
    /// own `jwks`, `iss` and `sub`, `iat`/`exp` at `now` (60 s of clock skew on `iat`) and the two endpoints. Every
    /// failure is ``WalletInstanceError/untrustedProvider(_:)``.
    public init(entityConfiguration jwt: String, expectedEntityID: String, at now: Date) throws(WalletInstanceError) {
        let (claims, keys) = try EntityConfigurationCheck.claims(of: jwt, expectedEntityID: expectedEntityID, at: now)
        guard let metadata = claims["metadata"]?["wallet_provider"]?.objectValue,
            let token = metadata["token_endpoint"]?.stringValue.flatMap(URL.init(string:)),
            let nonce = metadata["nonce_endpoint"]?.stringValue.flatMap(URL.init(string:))
        else { throw .untrustedProvider("metadata.wallet_provider with token_endpoint and nonce_endpoint is missing") }
        let attestationKeys = EntityConfigurationCheck.keys(metadata["jwks"])
        guard !attestationKeys.isEmpty else { throw .untrustedProvider("metadata.wallet_provider.jwks has no key") }
        entityID = expectedEntityID
        tokenEndpoint = token
        nonceEndpoint = nonce
        self.keys = keys
        self.attestationKeys = attestationKeys
    }
}
