import ArgumentParser
import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE

struct SDJWTPresent: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Make a presentation of an SD-JWT: only the chosen claims, with a Key Binding JWT.",
        discussion: """
            Reads the issued SD-JWT from --in or standard input. --disclose names the claims to reveal (same \
            path form as 'issue --sd'); each brings the Disclosures of its ancestors and of everything inside it. \
            With --holder-key, --aud and --nonce a KB-JWT (typ kb+jwt, iat now, sd_hash) is appended; without \
            --holder-key the presentation has no Key Binding. Prints the presentation.
            """)

    @Option(help: "Claim paths to disclose (comma-separated; repeatable).")
    var disclose: [String] = []

    @Option(name: .customLong("holder-key"), help: "Holder private key (PEM), the key in the credential's cnf.")
    var holderKey: String?

    @Option(help: "Verifier audience for the KB-JWT (aud).")
    var aud: String?

    @Option(help: "Verifier nonce for the KB-JWT.")
    var nonce: String?

    @Option(name: .customLong("in"), help: "The issued SD-JWT (default: standard input).")
    var input: String?

    func run() throws {
        let text = try SDJWTFiles.readCredential(input)
        do {
            let sdJWT = try SDJWT(parsing: text)
            let claims = try sdJWT.unverifiedClaims()
            let paths = try SDJWTFiles.paths(disclose, option: "--disclose", claims: .object(claims))
            if let holderKey {
                guard let aud, let nonce else { throw ValidationError("--holder-key needs --aud and --nonce") }
                let key = try SDJWTFiles.signingKey(holderKey, option: "--holder-key")
                print(try SDJWTPresentation.present(
                    sdJWT, disclosing: paths, holderKey: key, audience: aud, nonce: nonce, clock: SystemClock()))
            } else {
                guard aud == nil, nonce == nil else { throw ValidationError("--aud and --nonce need --holder-key") }
                print(try SDJWTPresentation.present(sdJWT, disclosing: paths))
            }
        } catch let error as SDJWTError {
            throw UserFacingError("cannot present: \(error)")
        }
    }
}
