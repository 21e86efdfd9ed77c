import ITWalletProtocol

/// Which IT-Wallet version a Wallet Instance speaks with its provider. The provider's versions are read from its
/// Entity Configuration's metadata entity types (`ITWalletMetadata.versions(advertisedBy:)`), never guessed.
public enum SpecNegotiation {
    /// Every version this wallet speaks.
    public static let spoken: Set<ITWalletVersion> = Set(ITWalletVersion.allCases)

    /// `forced` when the provider advertises it, else the newest version both sides speak. A forced version the
    /// provider does not advertise is refused by name (the wallet never falls back silently).
    public static func choose(advertised: Set<ITWalletVersion>, forced: ITWalletVersion? = nil) throws(AttestationCheckError) -> ITWalletVersion {
        let sorted = advertised.sorted()
        if let forced {
            guard advertised.contains(forced) else { throw .versionNotAdvertised(forced, advertised: sorted) }
            return forced
        }
        guard let newest = advertised.intersection(spoken).max() else { throw .noCommonVersion(advertised: sorted) }
        return newest
    }
}
