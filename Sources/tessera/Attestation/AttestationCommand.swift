import ArgumentParser

/// `tessera attestation …`: device key attestations, offline.
struct AttestationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attestation", abstract: "Check Apple App Attest and Android key attestations offline.",
        subcommands: [AttestationVerify.self])
}
