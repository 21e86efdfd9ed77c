import ArgumentParser
import Foundation

/// `tessera mdoc …`: a test issuer, a holder and a reader for ISO/IEC 18013-5 mdocs, on files.
/// Other tools script against these commands; their options and outputs are a contract.
struct MDocCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc",
        abstract: "Issue, present and verify ISO/IEC 18013-5 mdocs.",
        subcommands: [IACACommand.self, MDocIssue.self, MDocRespond.self, MDocVerify.self, MDocInspect.self])
}

struct IACACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "iaca", abstract: "Test issuing authority certificates (Annex B).", subcommands: [IACACreate.self])
}
