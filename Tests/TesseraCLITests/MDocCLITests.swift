import Crypto
import Foundation
import Testing

/// The `tessera mdoc` contract, run as a user would: files in, files and exit codes out.
@Suite final class MDocCLITests {
    let dir: URL

    deinit { try? FileManager.default.removeItem(at: dir) }

    init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-mdoc-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let device = P256.Signing.PrivateKey()
        try device.pemRepresentation.write(to: dir.appendingPathComponent("dev.key.pem"), atomically: true, encoding: .utf8)
        try device.publicKey.pemRepresentation.write(to: dir.appendingPathComponent("dev.pub.pem"), atomically: true, encoding: .utf8)
        let claims = """
            {"org.iso.18013.5.1": {"family_name": "Mustermann", "given_name": "Erika", "birth_date": "1984-01-26",
             "issue_date": "2024-03-01", "expiry_date": "2034-03-01", "issuing_country": "DE",
             "issuing_authority": "Test Land", "document_number": "X123", "portrait": "/9j/4AAQ", "age_over_18": true,
             "driving_privileges": [{"vehicle_category_code": "B", "issue_date": "2010-01-01"}]},
             "org.example.loyalty": {"member_since": 2019, "tier": "gold"}}
            """
        try claims.write(to: dir.appendingPathComponent("claims.json"), atomically: true, encoding: .utf8)
        try #"{"nameSpaces": {"org.iso.18013.5.1": {"family_name": true, "age_over_18": false, "portrait": false}}}"#
            .write(to: dir.appendingPathComponent("req.json"), atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    func run(_ args: [String]) throws -> CLI.Result { try CLI.run(args) }

    /// iaca create → issue → respond: returns the response path.
    func issueAndRespond(pki: String = "pki", request: [String]? = nil) throws -> String {
        #expect(try run(["mdoc", "iaca", "create", "--out", path(pki), "--country", "DE"]).status == 0)
        for file in ["iaca.pem", "iaca.key.pem", "ds.pem", "ds.key.pem"] {
            #expect(FileManager.default.fileExists(atPath: path("\(pki)/\(file)")))
        }
        let issue = try run([
            "mdoc", "issue", "--ds-cert", path("\(pki)/ds.pem"), "--ds-key", path("\(pki)/ds.key.pem"), "--claims",
            path("claims.json"), "--device-key", path("dev.pub.pem"), "--out", path("issuer-signed.cbor"),
        ])
        #expect(issue.status == 0, "\(issue.stderr)")
        let respond = try run(
            ["mdoc", "respond", "--issuer-signed", path("issuer-signed.cbor"), "--device-key", path("dev.key.pem"),
             "--out", path("response.cbor")] + (request ?? ["--request", path("req.json")]))
        #expect(respond.status == 0, "\(respond.stderr)")
        return path("response.cbor")
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func issueRespondVerifyRoundTrip() throws {
        let response = try issueAndRespond()
        let verify = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), response, "--json"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let result = try json(verify.stdout)
        #expect(result["valid"] as? Bool == true)
        let documents = try #require(result["documents"] as? [[String: Any]])
        #expect(documents.first?["docType"] as? String == "org.iso.18013.5.1.mDL")
        let elements = try #require((documents.first?["elements"] as? [String: Any])?["org.iso.18013.5.1"] as? [String: Any])
        #expect(elements["family_name"] as? String == "Mustermann")
        #expect(elements["portrait"] as? String == "/9j/4AAQ")
        #expect(elements["age_over_18"] as? Bool == true)
        #expect(elements["given_name"] == nil)  // not requested
        let text = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), response])
        #expect(text.status == 0 && text.stdout.hasSuffix("valid\n"))
    }

    @Test func allElementsAndOtherNamespaces() throws {
        let response = try issueAndRespond(request: ["--all"])
        let verify = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), response, "--json"])
        let documents = try #require(try json(verify.stdout)["documents"] as? [[String: Any]])
        let elements = try #require(documents.first?["elements"] as? [String: [String: Any]])
        #expect(elements["org.iso.18013.5.1"]?["birth_date"] as? String == "1984-01-26")
        #expect(elements["org.example.loyalty"]?["member_since"] as? Int == 2019)
        #expect(elements["org.iso.18013.5.1"]?.count == 11)
    }

    @Test func verifyFailsWhenExpiredUntrustedOrTampered() throws {
        let response = try issueAndRespond()
        let expired = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), "--at", "2060-01-01T00:00:00Z", response, "--json"])
        #expect(expired.status == 1)
        let codes = Set(((try json(expired.stdout)["documents"] as? [[String: Any]])?.first?["errors"] as? [[String: Any]] ?? [])
            .compactMap { $0["code"] as? String })
        #expect(codes.isSuperset(of: ["mso_expired", "document_signer_chain_invalid"]))

        #expect(try run(["mdoc", "iaca", "create", "--out", path("other")]).status == 0)
        let untrusted = try run(["mdoc", "verify", "--trust", path("other/iaca.pem"), response])
        #expect(untrusted.status == 1 && untrusted.stdout.contains("document_signer_chain_invalid"))

        var bytes = try Data(contentsOf: URL(fileURLWithPath: response))
        let name = Data("Mustermann".utf8)
        let range = try #require(bytes.range(of: name))
        bytes[range.lowerBound] = UInt8(ascii: "N")
        try bytes.write(to: dir.appendingPathComponent("tampered.cbor"))
        let tampered = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), path("tampered.cbor")])
        #expect(tampered.status == 1 && tampered.stdout.contains("digest_mismatch"))
    }

    @Test func responseIsBoundToItsTranscript() throws {
        let transcript = Data([0x83, 0xf6, 0xf6, 0x63, 0x61, 0x62, 0x63])  // [null, null, "abc"]
        try transcript.write(to: dir.appendingPathComponent("transcript.cbor"))
        _ = try issueAndRespond(request: ["--all", "--transcript", path("transcript.cbor")])
        let withIt = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), "--transcript", path("transcript.cbor"), path("response.cbor")])
        #expect(withIt.status == 0)
        let withDefault = try run(["mdoc", "verify", "--trust", path("pki/iaca.pem"), path("response.cbor")])
        #expect(withDefault.status == 1 && withDefault.stdout.contains("device_signature_invalid"))
    }

    @Test func issueRejectsWrongElementTypes() throws {
        #expect(try run(["mdoc", "iaca", "create", "--out", path("pki")]).status == 0)
        try #"{"org.iso.18013.5.1": {"birth_date": 1984}}"#.write(to: dir.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        let r = try run([
            "mdoc", "issue", "--ds-cert", path("pki/ds.pem"), "--ds-key", path("pki/ds.key.pem"), "--claims", path("bad.json"),
            "--device-key", path("dev.pub.pem"), "--out", path("x.cbor"),
        ])
        #expect(r.status == 1 && r.stderr.contains("birth_date") && r.stderr.contains("full-date"))
    }

    @Test func inspectNamesTheStructure() throws {
        let response = try issueAndRespond()
        let r = try run(["mdoc", "inspect", response])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("# DeviceResponse (version 1.0, status 0, documents: org.iso.18013.5.1.mDL)"))
        #expect(r.stdout.contains("\"elementIdentifier\": \"family_name\""))  // tag 24 expanded
        let issued = try run(["mdoc", "inspect", path("issuer-signed.cbor")])
        #expect(issued.stdout.hasPrefix("# IssuerSigned (org.iso.18013.5.1.mDL"))
        #expect(issued.stdout.contains("\"valueDigests\""))  // MSO payload expanded
    }

    @Test func respondNeedsExactlyOneOfRequestAndAll() throws {
        let r = try run(["mdoc", "respond", "--issuer-signed", "x", "--device-key", "y", "--out", "z"])
        #expect(r.status != 0 && r.stderr.contains("--request"))
    }
}
