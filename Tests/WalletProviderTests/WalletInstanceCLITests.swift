import Foundation
import HTTPTransport
import TesseraHTTP
import TesseraJOSE
import TesseraTestSupport
import Testing

/// `tessera wallet-instance` against a `tessera provider serve` process: activation in the newest version, `attest`
/// with `--spec` printing each version's documents and claims, `key-attest`, and the refusals a user sees.
@Suite(.serialized)
struct WalletInstanceCLITests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var json: JSONObject? { stdout.split(separator: "\n").last.flatMap { try? JSONValue.parse(Data($0.utf8)) }?.objectValue }
    }

    static func tessera(_ arguments: [String], home: URL) async throws -> Run {
        try await offCooperativePool {
            let process = Process()
            process.executableURL = ServiceProcess.executable
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["TESSERA_HOME"] = home.path
            process.environment = environment
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
        }
    }

    @Test func attestAndKeyAttestPrintEachVersionsDocuments() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-wi-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let root = try await Self.tessera(["wallet-instance", "test-root"], home: home).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let provider = try await ServiceProcess.start(
            ["provider", "serve", "--port", "0", "--trust-test-attestation-root", root, "--password-cost", "m=64,t=1,p=1"],
            environment: ["TESSERA_HOME": home.path])
        defer { provider.stop() }
        let signup = try await Self.tessera(
            ["wallet-instance", "signup", "--provider", provider.baseURL, "--email", "cli@example.org", "--password", "correct horse battery"], home: home)
        #expect(signup.status == 0, "\(signup.stderr)")

        let refused = try await Self.tessera(["wallet-instance", "activate", "--spec", "2.0"], home: home)
        #expect(refused.status != 0 && refused.stderr.contains("--spec"))
        let activated = try await Self.tessera(["wallet-instance", "activate", "--json"], home: home)
        #expect(activated.json?["state"]?.stringValue == "operational", "\(activated.stderr)")
        #expect(activated.json?["spec"]?.stringValue == "1.5")

        let wia = try #require(try await Self.tessera(["wallet-instance", "attest", "--json"], home: home).json)
        #expect(wia["spec"]?.stringValue == "1.5")
        #expect(wia["header"]?["typ"]?.stringValue == "oauth-client-attestation+jwt" && wia["header"]?["x5c"] != nil)
        #expect(wia["claims"]?["client_status"]?["status"]?["status_list"]?["uri"]?.stringValue == wia["client_status"]?["uri"]?.stringValue)
        #expect(wia["wallet_instance_attestation"]?.stringValue != nil)

        let ten = try #require(try await Self.tessera(["wallet-instance", "attest", "--spec", "1.0", "--json"], home: home).json)
        let formats = try #require(ten["wallet_attestations"]?.arrayValue)
        #expect(formats.map { $0["format"]?.stringValue } == ["jwt", "dc+sd-jwt", "mso_mdoc"])
        #expect(formats.last?["claims"]?["docType"]?.stringValue == "org.iso.18013.5.1.IT.WalletAttestation")
        #expect(formats.dropFirst().first?["claims"]?["disclosures"]?.arrayValue?.isEmpty == false)

        let text = try await Self.tessera(["wallet-instance", "attest", "--spec", "1.3"], home: home)
        #expect(text.stdout.hasPrefix("spec: 1.3\nheader: "), "\(text.stderr)")

        let ka = try #require(try await Self.tessera(["wallet-instance", "key-attest", "--keys", "2", "--json"], home: home).json)
        #expect(ka["spec"]?.stringValue == "1.3")
        #expect(ka["claims"]?["attested_keys"]?.arrayValue?.count == 2)
        let noKA = try await Self.tessera(["wallet-instance", "key-attest", "--spec", "1.0"], home: home)
        #expect(noKA.status != 0 && noKA.stderr.contains("1.0 has no Key Attestation"))
        let wrongAnchor = try await Self.tessera(["wallet-instance", "attest", "--anchor", root], home: home)
        #expect(wrongAnchor.status != 0 && wrongAnchor.stderr.contains("refused"), "\(wrongAnchor.stderr)")

        // The provider's log (issue 29): one JSON line per request naming the route pattern, and none of the
        // secrets or personal data this run used.
        let lines = provider.output.split(separator: "\n").filter { $0.hasPrefix("{") }
        let requests = lines.compactMap { try? JSONValue.parse(Data($0.utf8)).objectValue }.filter { $0["message"] == "request" }
        #expect(requests.count >= 8, "\(provider.output)")
        #expect(requests.allSatisfy { $0["route"]?.stringValue?.hasPrefix("/") == true && $0["status"] != nil && $0["request_id"] != nil })
        let secrets = [
            "correct horse battery", "cli@example.org", wia["wallet_instance_attestation"]?.stringValue,
            formats.first?["wallet_attestation"]?.stringValue, ka["key_attestation"]?.stringValue,
        ].compactMap { $0 }
        #expect(secrets.count == 5)
        for secret in secrets { #expect(!provider.output.contains(secret), "the log holds a secret") }

        // Its metrics: the nonces taken, the device attestations verified, the statements timed.
        let http = AsyncHTTPClientTransport()
        defer { Task { try? await http.shutdown() } }
        let metricsURL = try #require(URL(string: provider.baseURL + "/metrics"))
        let metrics = String(decoding: try await http.send(HTTPRequest(method: .get, url: metricsURL)).body, as: UTF8.self)
        #expect(metrics.contains(#"tessera_single_use_consumed_total{kind="nonce"}"#), "\(metrics)")
        #expect(metrics.contains(#"tessera_outcomes_total{check="device_attestation",result="ok"}"#))
        #expect(metrics.contains(#"tessera_db_statement_duration_seconds_count{database="sqlite"}"#))
        #expect(metrics.contains(#"http_requests_total{method="POST""#))
    }
}
