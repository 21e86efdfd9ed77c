import ArgumentParser
import Foundation
import TesseraCore

/// `tessera sdjwt …`: a test issuer, a holder and a verifier for SD-JWT VCs (RFC 9901, SD-JWT VC), on files and
/// standard input. Other tools script against these commands; their options and outputs are a contract.
struct SDJWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdjwt",
        abstract: "Issue, present, verify and decode SD-JWT VCs (RFC 9901).",
        subcommands: [
            SDJWTPKICreate.self, SDJWTIssue.self, SDJWTPresent.self, SDJWTVerify.self, SDJWTDecode.self, SDJWTDemo.self,
        ])
}

/// `tessera sdjwt demo`: only the SD-JWT VC part of `tessera demo`.
struct SDJWTDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Issue a PID-like SD-JWT VC, present three claims with Key Binding, verify.")

    func run() async throws {
        try await DemoSDJWT.run(now: Date(), random: SystemRandomSource())
    }
}
