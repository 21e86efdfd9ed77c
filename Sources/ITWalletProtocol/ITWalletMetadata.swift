import TesseraJOSE

/// The Entity Configuration's metadata entity types that say which versions a Wallet Provider speaks. The
/// versions are read from the types the provider publishes, never guessed from anything else.
public enum ITWalletMetadata {
    /// 0.9 and 1.0: `wallet_provider` (0.9 adds `token_endpoint` and `nonce_endpoint`).
    public static let walletProvider = "wallet_provider"
    /// 1.3: `wallet_solution`, the wallet's metadata nested in `wallet_metadata`.
    public static let walletSolution = "wallet_solution"
    /// 1.5: `openid_wallet_provider` (OpenID Federation for Wallet Architectures), flat.
    public static let openIDWalletProvider = "openid_wallet_provider"
    /// OpenID Federation's `federation_entity`.
    public static let federationEntity = "federation_entity"

    /// The versions a provider's `metadata` object advertises: `openid_wallet_provider` ⇒ 1.5, `wallet_solution` ⇒
    /// 1.3, `wallet_provider` ⇒ 1.0, and 0.9 too when it names a `token_endpoint`.
    public static func versions(advertisedBy metadata: JSONObject) -> Set<ITWalletVersion> {
        var versions = Set<ITWalletVersion>()
        if let provider = metadata[walletProvider]?.objectValue {
            versions.insert(.v1_0)
            if provider["token_endpoint"]?.stringValue != nil { versions.insert(.v0_9) }
        }
        if metadata[walletSolution]?.objectValue != nil { versions.insert(.v1_3) }
        if metadata[openIDWalletProvider]?.objectValue != nil { versions.insert(.v1_5) }
        return versions
    }
}
