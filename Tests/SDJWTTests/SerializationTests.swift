import Foundation
import SDJWT
import TesseraJOSE
import Testing
import TesseraCore

@Suite("Serialization: compact and §8 JSON")
struct SerializationTests {
    func flattened(_ sdJWT: String) throws -> (protected: String, payload: String, signature: String, disclosures: [String]) {
        let parts = sdJWT.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        let jws = parts[0].split(separator: ".").map(String.init)
        return (jws[0], jws[1], jws[2], Array(parts.dropFirst().dropLast()))
    }

    @Test("JSON flattened built from a compact SD-JWT: same Disclosures, same sd_hash input, verifies")
    func flattenedRoundTrip() async throws {
        let d = Forge.disclosure("given_name", "Erika")
        let compact = try Forge.sdJWT(Forge.payload(["_sd": [.string(d.digest())]]), [d])
        let p = try flattened(compact)
        let kb = try Forge.kbJWT(over: compact)
        let json: JSONValue = [
            "payload": .string(p.payload), "protected": .string(p.protected), "signature": .string(p.signature),
            "header": ["disclosures": .array(p.disclosures.map(JSONValue.string)), "kb_jwt": .string(kb)],
        ]
        let sdJWT = try SDJWT(parsing: "  " + json.serializedString)
        #expect(sdJWT.serialization == .jsonFlattened)
        #expect(sdJWT.sdHashInput == compact)
        #expect(sdJWT.compact == compact + kb)
        let outcome = await Forge.verify(json.serializedString, Forge.policy(requireKeyBinding: true))
        #expect(outcome.isValid, "\(outcome.errors)")
        #expect(outcome.processedClaims["given_name"] == "Erika")
    }

    static let jsonCases: [(String, String)] = [
        (#"{"protected":"e30","signature":"AA"}"#, "no payload string"),
        (#"{"payload":"e30","signatures":[],"protected":"x"}"#, "general serialization with flattened members"),
        (#"{"payload":"e30","signatures":[]}"#, "signatures is not a non-empty array"),
        (#"{"payload":"e30","signatures":[1]}"#, "signature is not an object"),
        (#"{"payload":"e30","protected":"e30"}"#, "signature 0 lacks protected or signature"),
        (#"{"payload":"e30","protected":"e30","signature":"AA","header":1}"#, "unprotected header is not an object"),
        (#"{"payload":"e30","signatures":[{"protected":"P","signature":"AA"},{"protected":"P","signature":"AA","header":{"kb_jwt":"x"}}]}"#,
         "disclosures or kb_jwt outside the first signature's header"),
        (#"{"payload":"e30","protected":"P","signature":"AA","header":{"disclosures":"x"}}"#, "disclosures is not an array"),
        (#"{"payload":"e30","protected":"P","signature":"AA","header":{"disclosures":[""]}}"#, "a Disclosure is not a non-empty string"),
        (#"{"payload":"e30","protected":"P","signature":"AA","header":{"kb_jwt":5}}"#, "kb_jwt is not a string"),
    ]

    @Test("malformed JSON serializations", arguments: jsonCases)
    func malformedJSON(_ text: String, _ reason: String) {
        let protected = Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))
        let signature = Base64URL.encode(Data(repeating: 1, count: 64))
        let filled = text.replacingOccurrences(of: "\"P\"", with: "\"\(protected)\"").replacingOccurrences(of: "\"AA\"", with: "\"\(signature)\"")
        #expect(sdjwtError { _ = try SDJWT(parsing: filled) } == .malformedSerialization(reason))
    }

    @Test("JSON serialization: a bad protected header, a bad KB-JWT")
    func jsonInnerErrors() {
        #expect(sdjwtError { _ = try SDJWT(parsing: #"{"payload":"e30","protected":"e30","signature":""}"#) }
            == .malformedIssuerSignedJWT(.missingAlgorithm))
        let protected = Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))
        #expect(sdjwtError {
            _ = try SDJWT(parsing: #"{"payload":"e30","protected":"\#(protected)","signature":"","header":{"kb_jwt":"a.b"}}"#)
        } == .malformedKeyBindingJWT(.malformedCompact))
    }

    @Test("compact: the KB-JWT is whatever follows the last ~; a lone JWT is not an SD-JWT")
    func compactShapes() throws {
        let compact = try Forge.sdJWT(Forge.payload())
        #expect(try SDJWT(parsing: compact).keyBindingJWT == nil)
        #expect(sdjwtError { _ = try SDJWT(parsing: compact + "x") } == .malformedKeyBindingJWT(.malformedCompact))
        #expect(sdjwtError { _ = try SDJWT(parsing: "~") } == .malformedIssuerSignedJWT(.malformedCompact))
    }

    @Test("unverifiedClaims applies every Disclosure and reports the first broken rule")
    func unverifiedClaims() throws {
        let d = Forge.disclosure("given_name", "Erika")
        let sdJWT = try SDJWT(parsing: try Forge.sdJWT(Forge.payload(["_sd": [.string(d.digest())]]), [d]))
        #expect(try sdJWT.unverifiedClaims()["given_name"] == "Erika")
        let broken = try SDJWT(parsing: try Forge.sdJWT(Forge.payload(), [d]))
        #expect(sdjwtError { _ = try broken.unverifiedClaims() } == .unreferencedDisclosure(d.digest()))
    }

    @Test("error codes are the case names; descriptions never carry salts or values")
    func errorText() {
        #expect(SDJWTError.sdHashMismatch.code == "sdHashMismatch")
        #expect(SDJWTError.tooLarge(length: 1, limit: 0).code == "tooLarge")
        #expect(SDJWTError.credentialStatusNotValid(1).description.contains("INVALID"))
        #expect(SDJWTError.credentialStatusNotValid(2).description.contains("SUSPENDED"))
        let d = Forge.disclosure("secret_name", "secret value", salt: "SALTSALTSALTSALTSALTSA")
        for error in [SDJWTError.unreferencedDisclosure(d.digest()), .claimNameCollision("given_name")] {
            #expect(!error.description.contains("SALTSALT") && !error.description.contains("secret value"))
        }
    }
}
