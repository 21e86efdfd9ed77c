import Foundation
import Testing

/// The `tessera sdjwt` contract, run as a user would: files and standard input in, output and exit codes out.
@Suite final class SDJWTCLITests {
    let dir: URL

    deinit { try? FileManager.default.removeItem(at: dir) }

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-sdjwt-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let claims = """
            {"given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12",
             "age_equal_or_over": {"18": true, "21": true}, "nationalities": ["DE", "FR"],
             "address": {"street_address": "Heidestraße 17", "locality": "Köln", "country": "DE"}}
            """
        try claims.write(to: dir.appendingPathComponent("claims.json"), atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// pki-create → issue: returns the issued SD-JWT.
    func issue(_ extra: [String] = []) throws -> String {
        let pki = try CLI.run(["sdjwt", "pki-create", "--out", path("pki")])
        #expect(pki.status == 0, "\(pki.stderr)")
        for file in ["root.pem", "issuer.pem", "issuer.key.pem", "holder.key.pem", "holder.jwk"] {
            #expect(FileManager.default.fileExists(atPath: path("pki/\(file)")))
        }
        let issued = try CLI.run([
            "sdjwt", "issue", "--key", path("pki/issuer.key.pem"), "--cert", path("pki/issuer.pem"), "--claims",
            path("claims.json"), "--sd", "given_name,family_name,birthdate,age_equal_or_over.18,age_equal_or_over.21",
            "--sd", "nationalities.*", "--sd", "address,address.street_address", "--holder-jwk", path("pki/holder.jwk"),
            "--vct", "urn:eudi:pid:1", "--iss", "https://issuer.example.com",
        ] + extra)
        #expect(issued.status == 0, "\(issued.stderr)")
        let text = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(text.hasSuffix("~") && text.split(separator: "~").count == 10)  // JWT + 9 Disclosures
        return text
    }

    func present(_ credential: String, _ disclose: String, nonce: String = "n-42") throws -> String {
        let r = try CLI.run(
            ["sdjwt", "present", "--disclose", disclose, "--holder-key", path("pki/holder.key.pem"), "--aud",
             "https://verifier.example.org", "--nonce", nonce], stdin: Data(credential.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func issuePresentVerifyJSON() throws {
        let credential = try issue()
        let presentation = try present(credential, "given_name,age_equal_or_over.18,address.street_address")
        #expect(!presentation.hasSuffix("~"))  // ends with the KB-JWT
        let r = try CLI.run(
            ["sdjwt", "verify", "--trust", path("pki/root.pem"), "--aud", "https://verifier.example.org", "--nonce",
             "n-42", "--json"], stdin: Data(presentation.utf8))
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        let result = try json(r.stdout)
        #expect(result["valid"] as? Bool == true)
        #expect((result["errors"] as? [Any])?.isEmpty == true)
        let claims = try #require(result["claims"] as? [String: Any])
        #expect(claims["given_name"] as? String == "Erika")
        #expect(claims["family_name"] == nil)
        #expect((claims["age_equal_or_over"] as? [String: Bool]) == ["18": true])
        #expect((claims["address"] as? [String: String]) == ["street_address": "Heidestraße 17", "locality": "Köln", "country": "DE"])
        #expect((claims["nationalities"] as? [String]) == [])
        #expect(claims["vct"] as? String == "urn:eudi:pid:1")
    }

    @Test func verifyFailuresExitOneAndNameTheRule() throws {
        let credential = try issue()
        let presentation = try present(credential, "given_name")
        // Wrong nonce.
        let nonce = try CLI.run(
            ["sdjwt", "verify", "--trust", path("pki/root.pem"), "--aud", "https://verifier.example.org", "--nonce",
             "other", "--json"], stdin: Data(presentation.utf8))
        #expect(nonce.status == 1)
        let result = try json(nonce.stdout)
        #expect(result["valid"] as? Bool == false)
        let codes = (result["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String }
        #expect(codes == ["keyBindingNonceMismatch"])
        // Key Binding required by --aud, but the credential is presented without it.
        let unbound = try CLI.run(["sdjwt", "present", "--disclose", "given_name"], stdin: Data(credential.utf8))
        #expect(unbound.status == 0)
        let noKB = try CLI.run(
            ["sdjwt", "verify", "--trust", path("pki/root.pem"), "--aud", "https://verifier.example.org", "--nonce", "n-42"],
            stdin: Data(unbound.stdout.utf8))
        #expect(noKB.status == 1 && noKB.stdout.contains("INVALID") && noKB.stdout.contains("§7.3 step 2"))
        // Without --aud/--nonce the unbound presentation is fine.
        let plain = try CLI.run(["sdjwt", "verify", "--trust", path("pki/root.pem")], stdin: Data(unbound.stdout.utf8))
        #expect(plain.status == 0 && plain.stdout.hasPrefix("valid"), "\(plain.stdout)")
        // Another trust anchor: the x5c chain fails, and no claims are handed out.
        #expect(try CLI.run(["sdjwt", "pki-create", "--out", path("other")]).status == 0)
        let untrusted = try CLI.run(
            ["sdjwt", "verify", "--trust", path("other/root.pem"), "--json"], stdin: Data(unbound.stdout.utf8))
        #expect(untrusted.status == 1)
        let untrustedResult = try json(untrusted.stdout)
        #expect((untrustedResult["errors"] as? [[String: Any]])?.first?["code"] as? String == "x5cChainInvalid")
        #expect((untrustedResult["claims"] as? [String: Any])?.isEmpty == true)
        // A Disclosure tampered with: every problem listed.
        let tampered = presentation.replacingOccurrences(of: "~", with: "~WyJzYWx0c2FsdHNhbHRzYWx0c2FsdCIsImEiLDFd~", options: [], range: presentation.range(of: "~"))
        let t = try CLI.run(
            ["sdjwt", "verify", "--trust", path("pki/root.pem"), "--aud", "https://verifier.example.org", "--nonce",
             "n-42", "--json"], stdin: Data(tampered.utf8))
        let tCodes = (try json(t.stdout)["errors"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        #expect(t.status == 1 && Set(tCodes) == ["unreferencedDisclosure", "sdHashMismatch"], "\(tCodes)")
    }

    @Test func decodeShowsEverythingUnverified() throws {
        let credential = try issue(["--decoys", "1-2"])
        let r = try CLI.run(["sdjwt", "decode"], stdin: Data(credential.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        let decoded = try json(r.stdout)
        #expect((decoded["header"] as? [String: Any])?["typ"] as? String == "dc+sd-jwt")
        #expect((decoded["disclosures"] as? [Any])?.count == 9)
        let claims = try #require(decoded["claims"] as? [String: Any])
        #expect(claims["family_name"] as? String == "Mustermann")
        #expect((claims["nationalities"] as? [String]) == ["DE", "FR"])
    }

    @Test func userErrors() throws {
        _ = try issue()
        let badPath = try CLI.run(
            ["sdjwt", "issue", "--key", path("pki/issuer.key.pem"), "--cert", path("pki/issuer.pem"), "--claims",
             path("claims.json"), "--sd", "given_name..x", "--holder-jwk", path("pki/holder.jwk")])
        #expect(badPath.status != 0 && badPath.stderr.contains("--sd"))
        let missing = try CLI.run(
            ["sdjwt", "issue", "--key", path("pki/issuer.key.pem"), "--cert", path("pki/issuer.pem"), "--claims",
             path("claims.json"), "--sd", "zip_code", "--holder-jwk", path("pki/holder.jwk")])
        #expect(missing.status == 1 && missing.stderr.contains("zip_code selects no claim"))
        let notSDJWT = try CLI.run(["sdjwt", "decode"], stdin: Data("hello".utf8))
        #expect(notSDJWT.status == 1 && notSDJWT.stderr.contains("not an SD-JWT"))
        let garbage = try CLI.run(["sdjwt", "verify", "--trust", path("pki/root.pem"), "--json"], stdin: Data("a.b.c~".utf8))
        #expect(garbage.status == 1)
        #expect((try json(garbage.stdout)["errors"] as? [[String: Any]])?.first?["code"] as? String == "malformedIssuerSignedJWT")
    }

    @Test func demoIssuesPresentsAndVerifies() throws {
        let r = try CLI.run(["sdjwt", "demo"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("issued: urn:eudi:pid:1"))
        #expect(r.stdout.contains("status list entry 7: VALID"))
        #expect(r.stdout.hasSuffix("sd-jwt vc verification: valid\n"))
    }
}
