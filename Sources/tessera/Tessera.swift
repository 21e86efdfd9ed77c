import ArgumentParser

/// The one Tessera command line (ARCHITECTURE.md: exe layer).
@main
struct Tessera: AsyncParsableCommand {
    /// The release this build is (`tessera --version`).
    static let version = "0.8.0"

    static let configuration = CommandConfiguration(
        commandName: "tessera",
        abstract: "Tessera \(version), a Swift toolkit for digital identity wallets.",
        discussion: """
            Tessera covers in-person presentation of ISO/IEC 18013-5 mdocs (mDL) over QR and Bluetooth LE, remote \
            presentation with OpenID4VP 1.0 of SD-JWT VC and mdoc credentials, an IT-Wallet Wallet Provider, and a \
            personal vault: a ledger and a vault host reached over NATS. The subcommands drive each side (issuer, \
            wallet, holder, verifier, services) with test keys kept in $TESSERA_HOME (default ~/.tessera).

            Start with `tessera demo`: every flow, end to end on this machine.
            """,
        version: version,
        subcommands: [
            Demo.self, CBORCommand.self, MDocCommand.self, SDJWTCommand.self, WalletCommand.self, HolderCommand.self,
            VerifierCommand.self, ProviderCommand.self, WalletInstanceCommand.self, AttestationCommand.self, LedgerCommand.self,
            VaultCommand.self,
        ],
        defaultSubcommand: nil
    )
}

/// A failure the user caused or can fix: printed as one line, exit status 1.
struct UserFacingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
