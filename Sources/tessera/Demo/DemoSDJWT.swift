import Crypto
import Foundation
import SDJWT
import TesseraCore
import TesseraJOSE
import TesseraTrust
import TesseraTrustTesting
import TokenStatusList

/// The SD-JWT VC part of `tessera demo` (and of the demo wallet): a test PID issuer (x5c chain to a test root)
/// issues a PID-like SD-JWT VC with a Token Status List entry, the holder presents a few claims with a KB-JWT, and
/// the verifier checks everything (OpenID4VP / HAIP profile).
enum DemoSDJWT {
    static let vct = "urn:eudi:pid:1"
    static let statusURI = "https://issuer.example.com/status/1"

    /// PID-like claims; every one of them selectively disclosable.
    static let claims: JSONObject = [
        "given_name": "Erika",
        "family_name": "Mustermann",
        "birthdate": "1964-08-12",
        "age_equal_or_over": ["18": true, "21": true],
        "nationalities": ["DE"],
        "address": ["street_address": "Heidestraße 17", "locality": "Köln", "postal_code": "51147", "country": "DE"],
    ]

    static var disclosable: [ClaimsPathPointer] {
        get throws {
            try [
                ClaimsPathPointer(keys: "given_name"), ClaimsPathPointer(keys: "family_name"),
                ClaimsPathPointer(keys: "birthdate"), ClaimsPathPointer(keys: "age_equal_or_over"),
                ClaimsPathPointer(keys: "age_equal_or_over", "18"), ClaimsPathPointer(keys: "age_equal_or_over", "21"),
                ClaimsPathPointer(keys: "nationalities"), ClaimsPathPointer([.key("nationalities"), .allElements]),
                ClaimsPathPointer(keys: "address"),
                ClaimsPathPointer(keys: "address", "street_address"), ClaimsPathPointer(keys: "address", "locality"),
                ClaimsPathPointer(keys: "address", "postal_code"), ClaimsPathPointer(keys: "address", "country"),
            ]
        }
    }

    static func run(now: Date, random: any RandomSource) async throws {
        print("== Test PID issuer → holder → verifier (SD-JWT VC, RFC 9901) ==")
        let clock = FixedClock(now)
        var generator = random.generator
        let root = try X5CTestPKI.issueRoot(
            .init(commonName: "Tessera Demo PID Root", notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(365 * 86_400)),
            random: &generator)
        let issuerCertificate = try X5CTestPKI.issue(
            .init(commonName: "Tessera Demo PID Issuer", notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(365 * 86_400)),
            by: root, random: &generator)
        guard case .p256(let issuerP256) = issuerCertificate.privateKey else {
            throw UserFacingError("demo PID issuer key is not P-256")
        }
        let issuerKey = JWSSigningKey.es256(issuerP256)
        let holderKey = JWSSigningKey.es256(try P256.Signing.PrivateKey(rawRepresentation: random.bytes(32)))
        print("issuer: \(issuerCertificate.certificate.subject) ← \(root.certificate.subject)")

        // The issuer's Token Status List: this credential is entry 7 (VALID).
        var statusList = try StatusList(bits: 2, count: 1024)
        try statusList.setStatus(StatusList.invalid, at: 3)
        let statusToken = try StatusListToken.issue(
            statusList, subject: statusURI, issuedAt: now, expiresAt: now.addingTimeInterval(86_400), timeToLive: 3600,
            key: issuerKey, x5c: [try issuerCertificate.derEncoded()])

        let issuer = try SDJWTIssuer(signingKey: issuerKey, clock: clock, random: random, decoyDigests: 1...3)
        let credential = try issuer.issueVC(
            vct: vct, claims: claims, disclosable: try disclosable, holderKey: holderKey.publicJWK,
            issuer: "https://issuer.example.com", validity: 90 * 86_400,
            status: StatusListReference(index: 7, uri: statusURI).claim, x5c: [try issuerCertificate.derEncoded()])
        print("issued: \(vct), \(credential.disclosures.count) Disclosures, \(credential.compact.utf8.count) characters")
        print("  \(credential.compact.prefix(72))…")
        for disclosure in credential.disclosures {
            let name = disclosure.claimName ?? "(array element)"
            let value = disclosure.claimValue.description
            print("  disclosure \(name): \(value.count > 60 ? value.prefix(57) + "…" : value)")
        }

        // The holder discloses three claims to the verifier, bound to its nonce.
        let audience = "x509_san_dns:verifier.example.org"
        let nonce = Base64URL.encode(random.bytes(16))
        let chosen = [
            try ClaimsPathPointer(keys: "given_name"), try ClaimsPathPointer(keys: "age_equal_or_over", "18"),
            try ClaimsPathPointer(keys: "address", "country"),
        ]
        let presentation = try SDJWTPresentation.present(
            credential, disclosing: chosen, holderKey: holderKey, audience: audience, nonce: nonce, clock: clock)
        let presented = try SDJWT(parsing: presentation)
        print("presentation: \(chosen.map(\.description).joined(separator: ", ")) → \(presented.disclosures.count) Disclosures + KB-JWT")

        let policy = SDJWTVerificationPolicy.sdJWTVC(
            issuerKeySource: .x5c(anchors: [root.certificate]), expectedAudience: audience, expectedNonce: nonce,
            statusCheck: StatusListCheck(fetcher: InMemoryStatusListFetcher(tokens: [statusURI: statusToken.jwt.compact])))
        let outcome = await SDJWTVerifier(policy: policy, clock: clock).verify(presentation)
        var shown = outcome.processedClaims
        shown["cnf"] = nil
        print("verified claims: \(shown)")
        if let status = outcome.status { print("status list entry 7: \(status == StatusList.valid ? "VALID" : "0x\(status)")") }
        guard outcome.isValid else {
            throw UserFacingError("sd-jwt vc verification: INVALID (\(outcome.errors.map(\.description).joined(separator: "; ")))")
        }
        print("sd-jwt vc verification: valid")
    }
}
