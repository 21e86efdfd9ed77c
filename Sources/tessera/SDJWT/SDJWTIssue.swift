import ArgumentParser
import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE

struct SDJWTIssue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "issue",
        abstract: "Issue an SD-JWT VC (typ dc+sd-jwt) signed with an x5c certificate.",
        discussion: """
            The claims file is a JSON object of user claims. --sd names the selectively disclosable ones as \
            paths (repeat it, or separate with commas): 'address' (the whole object), 'address.street_address' \
            (a member; with 'address' too: recursive), 'nationalities.0' (one element), 'nationalities.*' (every \
            element). iat is now; vct, cnf (the holder JWK), iss and exp stay in clear. Prints the SD-JWT \
            (<JWT>~<Disclosure>~…~) or writes it to --out.
            """)

    @Option(help: "Issuer private key (PEM, PKCS#8 or SEC 1).")
    var key: String

    @Option(help: "Issuer certificate chain for the x5c header (PEM, leaf first).")
    var cert: String

    @Option(help: "User claims (JSON object).")
    var claims: String

    @Option(name: .customLong("sd"), help: "Selectively disclosable claim paths (comma-separated; repeatable).")
    var sd: [String] = []

    @Option(name: .customLong("holder-jwk"), help: "Holder public key (JWK JSON) for cnf, enabling Key Binding.")
    var holderJWK: String

    @Option(help: "Credential type (vct).")
    var vct = "urn:eudi:pid:1"

    @Option(help: "Issuer identifier (iss), e.g. https://issuer.example.com.")
    var iss: String?

    @Option(help: "Validity in days (exp = now + days).")
    var days: Int = 365

    @Option(help: "Decoy digests per _sd array: a number or a range like 1-3.")
    var decoys = "0"

    @Option(help: "Write the SD-JWT here instead of standard output.")
    var out: String?

    func run() throws {
        let signingKey = try SDJWTFiles.signingKey(key, option: "--key")
        let chain = try MDocFiles.certificates(cert)
        guard case .object(let userClaims) = try SDJWTFiles.json(claims, option: "--claims") else {
            throw UserFacingError("--claims \(claims): not a JSON object")
        }
        let paths = try SDJWTFiles.paths(sd, option: "--sd", claims: .object(userClaims))
        let holder = try SDJWTFiles.jwk(holderJWK, option: "--holder-jwk")
        guard days > 0 else { throw ValidationError("--days must be positive") }
        let decoyRange = try Self.range(decoys)
        do {
            let issuer = try SDJWTIssuer(
                signingKey: signingKey, clock: SystemClock(), random: SystemRandomSource(), decoyDigests: decoyRange)
            let sdJWT = try issuer.issueVC(
                vct: vct, claims: userClaims, disclosable: paths, holderKey: holder.publicJWK, issuer: iss,
                validity: TimeInterval(days) * 86_400, x5c: chain)
            if let out {
                try MDocFiles.write(Data(sdJWT.compact.utf8), to: out)
                print("issued \(vct): \(sdJWT.disclosures.count) Disclosures, wrote \(out)")
            } else {
                print(sdJWT.compact)
            }
        } catch let error as SDJWTError {
            throw UserFacingError("cannot issue: \(error)")
        }
    }

    static func range(_ text: String) throws -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        switch parts.count {
        case 1: if let n = parts[0], n >= 0, n <= 100 { return n...n }
        case 2: if let a = parts[0], let b = parts[1], a >= 0, a <= b, b <= 100 { return a...b }
        default: break
        }
        throw ValidationError("--decoys: expected N or A-B with 0 ≤ A ≤ B ≤ 100")
    }
}
