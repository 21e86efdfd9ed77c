import Foundation
import ITWalletProtocol
import TesseraJOSE

/// A Wallet Provider's Entity Configuration read for every IT-Wallet version (OpenID Federation §9, IT-Wallet
/// "Wallet Provider metadata" / 1.5 §9.1.7): self-signed by a key of its top-level `jwks`, `iss` = `sub` = the
/// provider's URL, current; the versions it speaks from its metadata entity types; the keys its attestations are
/// signed with from those types' `jwks`.
public struct ProviderEntity: Sendable {
    /// The entity identifier, the base URL every endpoint path is relative to (`ITWalletEndpoint`).
    public let entityID: String
    /// The versions its metadata advertises.
    public let versions: Set<ITWalletVersion>
    /// The `jwks` keys of its provider entity types (`wallet_provider`, `wallet_solution`, `openid_wallet_provider`):
    /// an attestation's `x5c` leaf must carry one of them.
    public let attestationKeys: [JWK]
    /// The Entity Configuration as received.
    public let jwt: String

    /// Checks `jwt` fetched from `expectedEntityID` at `now` (60 s of skew on `iat`); every failure is
    /// ``WalletInstanceError/untrustedProvider(_:)``.
    public init(entityConfiguration jwt: String, expectedEntityID: String, at now: Date) throws(WalletInstanceError) {
        let (claims, _) = try EntityConfigurationCheck.claims(of: jwt, expectedEntityID: expectedEntityID, at: now)
        let metadata = claims["metadata"]?.objectValue ?? [:]
        entityID = expectedEntityID
        versions = ITWalletMetadata.versions(advertisedBy: metadata)
        let types = [ITWalletMetadata.walletProvider, ITWalletMetadata.walletSolution, ITWalletMetadata.openIDWalletProvider]
        attestationKeys = types.flatMap { EntityConfigurationCheck.keys(metadata[$0]?["jwks"]) }
        self.jwt = jwt
    }

    /// `url` of `path` at this provider.
    func url(_ path: String) throws(WalletInstanceError) -> URL {
        guard let url = URL(string: entityID + path) else { throw .transport("invalid URL \(entityID + path)") }
        return url
    }
}
