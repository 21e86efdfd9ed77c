import Foundation
import SDJWT
import TesseraJOSE
import TesseraTrust
import X509

/// Reading the files and inputs the sdjwt commands take, and printing JSON.
enum SDJWTFiles {
    /// The credential or presentation text: `--in FILE`, or standard input; surrounding white space dropped.
    static func readCredential(_ path: String?) throws -> String {
        let data = try InputBytes.read(file: path, hex: nil)
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw UserFacingError("no SD-JWT given (use --in FILE or standard input)") }
        return text
    }

    static func json(_ path: String, option: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(try MDocFiles.read(path))
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(option) \(path): not JSON (\(error))")
        }
    }

    /// `--sd` / `--disclose` values: each may list several comma-separated paths in the command-line form
    /// (`address.street_address`, `nationalities.0`, `nationalities.*`). Digit components meeting an object in
    /// `claims` are member names (`age_equal_or_over.18`).
    static func paths(_ values: [String], option: String, claims: JSONValue) throws -> [ClaimsPathPointer] {
        var pointers: [ClaimsPathPointer] = []
        for value in values {
            for part in value.split(separator: ",") {
                let text = part.trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else { continue }
                do {
                    pointers.append(try ClaimsPathPointer(parsing: text).resolvingNumericKeys(in: claims))
                } catch {
                    throw UserFacingError("\(option) \"\(text)\": \(error)")
                }
            }
        }
        return pointers
    }

    static func signingKey(_ path: String, option: String) throws -> JWSSigningKey {
        do {
            return try JWSSigningKey(pem: try MDocFiles.readText(path))
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(option) \(path): not an EC (P-256/384/521) or Ed25519 private key in PEM")
        }
    }

    static func jwk(_ path: String, option: String) throws -> JWK {
        do {
            return try JWK(parsing: try MDocFiles.read(path))
        } catch let error as UserFacingError {
            throw error
        } catch {
            throw UserFacingError("\(option) \(path): not a JWK (\(error))")
        }
    }

    static func anchors(_ path: String) throws -> [Certificate] {
        try MDocFiles.trustAnchors(path).certificates
    }

    /// JSON with two-space indentation, member order kept (for people; `--json` output is compact).
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .object(let object):
            guard !object.isEmpty else { return "{}" }
            let members = object.map { "\(inner)\(JSONValue.string($0.key).serializedString): \(pretty($0.value, indent: inner))" }
            return "{\n" + members.joined(separator: ",\n") + "\n\(indent)}"
        case .array(let array):
            guard !array.isEmpty else { return "[]" }
            return "[\n" + array.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        default:
            return value.serializedString
        }
    }
}
