import Foundation
import Testing

/// `tessera wallet add-pid`: the wallet's PID (SD-JWT VC) presents with its wallet key and verifies against the
/// test PID issuer's root; another key cannot make a valid key binding.
@Suite struct WalletPIDCLITests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-pid-\(UUID().uuidString)")

    @Test func addedPIDPresentsAndVerifies() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        var env = ProcessInfo.processInfo.environment
        env["TESSERA_HOME"] = home.path
        let added = try CLI.run(["wallet", "add-pid"], environment: env)
        #expect(added.status == 0, "\(added.stderr)")
        let credentials = home.appendingPathComponent("wallet/credentials")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: credentials.path).first)
        let record = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: credentials.appendingPathComponent(file))) as? [String: Any])
        #expect(record["format"] as? String == "dc+sd-jwt")
        let encoded = try #require(record["data"] as? String)
        let data = try #require(Data(base64Encoded: encoded))
        let credentialFile = home.appendingPathComponent("pid.txt")
        try data.write(to: credentialFile)
        let keyID = try #require(record["keyID"] as? String)
        let holderKey = home.appendingPathComponent("wallet/keys/\(keyID).key.pem").path
        let presented = try CLI.run(
            ["sdjwt", "present", "--in", credentialFile.path, "--disclose", "given_name,address.country", "--holder-key", holderKey,
             "--aud", "x509_san_dns:verifier.example", "--nonce", "n-123"])
        #expect(presented.status == 0, "\(presented.stderr)")
        let root = home.appendingPathComponent("pid-issuer/root.pem").path
        let verified = try CLI.run(
            ["sdjwt", "verify", "--trust", root, "--aud", "x509_san_dns:verifier.example", "--nonce", "n-123", "--json"],
            stdin: Data(presented.stdout.utf8))
        #expect(verified.status == 0, "\(verified.stdout)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])
        let claims = try #require(result["claims"] as? [String: Any])
        #expect(claims["given_name"] as? String == "Erika")
        #expect(claims["family_name"] == nil)
        // A wrong nonce fails the key binding.
        let replayed = try CLI.run(
            ["sdjwt", "verify", "--trust", root, "--aud", "x509_san_dns:verifier.example", "--nonce", "other", "--json"],
            stdin: Data(presented.stdout.utf8))
        #expect(replayed.status == 1)
    }
}
