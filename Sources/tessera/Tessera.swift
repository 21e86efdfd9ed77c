import ArgumentParser

/// The one Tessera command line (ARCHITECTURE.md: exe layer).
@main
struct Tessera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Digital identity wallet toolkit: ISO 18013-5 proximity (mDL), OpenID4VP, SD-JWT VC, an IT-Wallet Wallet Provider, a personal vault ledger.",
        version: "0.8.0",
        subcommands: [
            Demo.self, CBORCommand.self, MDocCommand.self, SDJWTCommand.self, WalletCommand.self, HolderCommand.self,
            VerifierCommand.self, ProviderCommand.self, WalletInstanceCommand.self, LedgerCommand.self, VaultCommand.self,
        ],
        defaultSubcommand: nil
    )
}

/// A failure the user caused or can fix: printed as one line, exit status 1.
struct UserFacingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
