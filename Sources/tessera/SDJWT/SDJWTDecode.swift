import ArgumentParser
import Foundation
import SDJWT
import TesseraJOSE

struct SDJWTDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Show an SD-JWT's header, payload, Disclosures, KB-JWT and claims, WITHOUT verifying anything.",
        discussion: "Reads --in or standard input (compact or JSON serialization). Prints one JSON object.")

    @Option(name: .customLong("in"), help: "The SD-JWT (default: standard input).")
    var input: String?

    func run() throws {
        let text = try SDJWTFiles.readCredential(input)
        let sdJWT: SDJWT
        do {
            sdJWT = try SDJWT(parsing: text)
        } catch {
            throw UserFacingError("not an SD-JWT: \(error)")
        }
        let algorithm = (try? sdJWT.hashAlgorithm()) ?? .sha256
        var out: JSONObject = [
            "header": .object(sdJWT.issuerSignedJWT.header),
            "payload": .object(sdJWT.payload),
            "disclosures": .array(sdJWT.disclosures.map { disclosure in
                var entry: JSONObject = ["digest": .string(disclosure.digest(algorithm)), "salt": .string(disclosure.salt)]
                if let name = disclosure.claimName { entry["name"] = .string(name) }
                entry["value"] = disclosure.claimValue
                return .object(entry)
            }),
        ]
        if let kb = sdJWT.keyBindingJWT {
            out["kb_jwt"] = .object(["header": .object(kb.header), "payload": (try? kb.payloadJSON()).map(JSONValue.object) ?? .null])
        }
        do {
            out["claims"] = .object(try sdJWT.unverifiedClaims())
        } catch {
            out["claims_error"] = .string(error.description)
        }
        print(SDJWTFiles.pretty(.object(out)))
    }
}
