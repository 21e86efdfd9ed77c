import Foundation
import SDJWT
import TesseraJOSE
import Testing
import TesseraCore

@Suite("RFC 9901 Disclosure vectors (Fixtures/rfc9901-disclosures.json)")
struct DisclosureVectorTests {
    @Test("every Disclosure parses to its salt, name and value, and hashes to the published digest")
    func vectors() throws {
        let cases = try Fixtures.cases("rfc9901-disclosures.json")
        #expect(cases.count == 18)
        for vector in cases {
            let text = try vector.string("disclosure")
            let disclosure = try Disclosure(parsing: text)
            #expect(disclosure.encoded == text)
            #expect(disclosure.salt == (try vector.string("salt")))
            #expect(disclosure.claimName == vector["claim_name"]?.stringValue)
            #expect(disclosure.claimValue == (try vector.member("claim_value")))
            #expect(disclosure.digest() == (try vector.string("digest_sha256")), "\(text)")
            // The string is base64url of exactly the given UTF-8 bytes (never a re-serialization).
            #expect(try Base64URL.decode(text) == Data(hex: try vector.string("utf8_hex")))
        }
    }

    @Test("spelling variants of one Disclosure give different digests (§4.2.3: hash the string as received)")
    func variants() throws {
        let cases = try Fixtures.cases("rfc9901-disclosures.json").filter {
            $0["claim_name"]?.stringValue == "family_name" && $0["claim_value"]?.stringValue == "Möbius"
        }
        #expect(cases.count == 4)
        let digests = Set(try cases.map { try Disclosure(parsing: try $0.string("disclosure")).digest() })
        #expect(digests.count == 4)
    }

    @Test("a Disclosure we make decodes back and its digest is over our exact string")
    func made() throws {
        let made = Disclosure(salt: "_26bc4LT-ac6q2KI6cBW5es", claimName: "family_name", claimValue: "Möbius")
        let parsed = try Disclosure(parsing: made.encoded)
        #expect(parsed.salt == made.salt && parsed.claimName == "family_name" && parsed.claimValue == "Möbius")
        #expect(made.digest() == SDHashAlgorithm.sha256.base64URLDigest(of: made.encoded))
        #expect(made.digest(.sha384) != made.digest(.sha256))
        #expect(try Base64URL.decode(made.digest(.sha512)).count == 64)
    }
}
