import ArgumentParser
import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE

struct SDJWTVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify an SD-JWT VC presentation (RFC 9901 §7.1, §7.3; SD-JWT VC).",
        discussion: """
            Reads the presentation from --in or standard input. The issuer key comes from the x5c header, \
            validated against --trust. Key Binding is required when --aud or --nonce is given (both must then \
            match); otherwise a KB-JWT that is present is still checked. Exit status 0 iff valid; every problem \
            is listed. With --json the result is {"valid": bool, "errors": [{"code", "message"}], "claims": {…}}; \
            claims are empty unless the issuer signature verified.
            """)

    @Option(help: "Trusted root certificates (PEM bundle) for the x5c chain.")
    var trust: String

    @Option(help: "Expected KB-JWT audience (aud); requires Key Binding.")
    var aud: String?

    @Option(help: "Expected KB-JWT nonce; requires Key Binding.")
    var nonce: String?

    @Flag(name: .customLong("require-kb"), help: "Require Key Binding even without --aud/--nonce.")
    var requireKeyBinding = false

    @Flag(name: .customLong("accept-vc-sd-jwt"), help: "Also accept the pre-2025 typ vc+sd-jwt.")
    var acceptLegacyType = false

    @Option(help: "Verification instant (ISO 8601; default now).")
    var at: String?

    @Flag(help: "Print the result as JSON.")
    var json = false

    @Option(name: .customLong("in"), help: "The presentation (default: standard input).")
    var input: String?

    func run() async throws {
        let anchors = try SDJWTFiles.anchors(trust)
        let instant = try at.map { try MDocFiles.instant($0, option: "--at") } ?? Date()
        let text = try SDJWTFiles.readCredential(input)
        let policy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: .x5c(anchors: anchors), expectedAudience: aud, expectedNonce: nonce,
            requireKeyBinding: requireKeyBinding || aud != nil || nonce != nil, acceptLegacyType: acceptLegacyType)
        let outcome = await SDJWTVerifier(policy: policy, clock: FixedClock(instant)).verify(text)
        if json {
            let result: JSONObject = [
                "valid": .bool(outcome.isValid),
                "errors": .array(outcome.errors.map { .object(["code": .string($0.code), "message": .string($0.description)]) }),
                "claims": .object(outcome.processedClaims),
            ]
            print(JSONValue.object(result).serializedString)
        } else {
            if outcome.isValid {
                print("valid")
            } else {
                print("INVALID")
                for error in outcome.errors { print("  - \(error)") }
            }
            if let certificate = outcome.issuerCertificate { print("issuer: \(certificate.subject)") }
            if let kb = outcome.keyBinding {
                print("key binding: holder \(kb.holderKey.thumbprintBase64URL()), aud \(kb.audience ?? "-"), nonce \(kb.nonce ?? "-")")
            }
            if !outcome.processedClaims.isEmpty {
                print("claims:")
                print(SDJWTFiles.pretty(.object(outcome.processedClaims)))
            }
        }
        if !outcome.isValid { throw ExitCode(1) }
    }
}
