import Foundation
import HolderKit
import OpenID4VP
import SwiftASN1
import TesseraJOSE
import TesseraTestSupport
import TesseraTrust
import Testing
import X509
import TesseraHTTP
import HTTPTransport
import TesseraTrustTesting

/// A verifier behind HTTPS with a private CA (`tessera verifier serve --tls-cert/--tls-key`): `tessera wallet present`
/// reaches it with `--tls-ca` or `SSL_CERT_FILE`, and refuses it with neither (the system store does not know the CA).
@Suite(.serialized)
struct PrivateCATests {
    struct PKI {
        let directory: URL
        var ca: String { directory.appendingPathComponent("ca.pem").path }
        var certificate: String { directory.appendingPathComponent("server.pem").path }
        var key: String { directory.appendingPathComponent("server.key.pem").path }
        let caDER: Data

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-private-ca-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var random = SystemRandomNumberGenerator()
            let now = Date()
            let root = try X5CTestPKI.issueRoot(
                X5CCertificateRequest(commonName: "Example Company CA", notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400)),
                random: &random)
            let server = try X5CTestPKI.issue(
                X5CCertificateRequest(
                    commonName: "127.0.0.1", subjectAlternativeNames: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost")],
                    notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(86_400)),
                by: root, random: &random)
            caDER = try root.derEncoded()
            try Data(try root.certificatePEM().utf8).write(to: directory.appendingPathComponent("ca.pem"))
            try Data(try server.certificatePEM().utf8).write(to: directory.appendingPathComponent("server.pem"))
            try Data(server.privateKeyPEM.utf8).write(to: directory.appendingPathComponent("server.key.pem"))
        }
    }

    @Test func walletPresentReachesAnHTTPSVerifierUnderAPrivateCA() async throws {
        let pki = try PKI()
        let home = pki.directory.appendingPathComponent("home")
        defer { try? FileManager.default.removeItem(at: pki.directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["TESSERA_HOME"] = home.path
        environment.removeValue(forKey: "SSL_CERT_FILE")
        #expect(try await CLI.runAsync(["wallet", "add-pid"], environment: environment).status == 0)
        let server = try await ServiceProcess.start(
            ["verifier", "serve", "--port", "0", "--tls-cert", pki.certificate, "--tls-key", pki.key],
            environment: ["TESSERA_HOME": home.path])
        defer { server.stop() }
        #expect(server.baseURL.hasPrefix("https://127.0.0.1:"))
        let http = try AsyncHTTPClientTransport(trusting: .init(additionalTrustRoots: [pki.caDER]))
        defer { Task { try? await http.shutdown() } }

        func transaction() async throws -> String {
            let url = try #require(URL(string: server.baseURL + "/api/transactions"))
            let body: JSONObject = ["template": "pid_basic"]
            let answer = try await http.send(HTTPRequest(
                method: .post, url: url, headers: [("Content-Type", "application/json")], body: body.serialized()))
            #expect(answer.status == 201)
            return try #require((try JSONValue.parse(answer.body)).objectValue?["authorization_request_uri"]?.stringValue)
        }

        // The system store alone: the TLS handshake fails, nothing is presented.
        let refused = try await CLI.runAsync(["wallet", "present", try await transaction(), "--consent", "all", "--json"], environment: environment)
        #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("failed"), "\(refused.stderr)")

        let withOption = try await CLI.runAsync(
            ["wallet", "present", try await transaction(), "--consent", "all", "--json", "--tls-ca", pki.ca], environment: environment)
        #expect(withOption.status == 0, "\(withOption.stdout) \(withOption.stderr)")
        #expect(withOption.stdout.contains(#""result":"success""#))

        var withEnvironment = environment
        withEnvironment["SSL_CERT_FILE"] = pki.ca
        let viaEnvironment = try await CLI.runAsync(["wallet", "present", try await transaction(), "--consent", "all", "--json"], environment: withEnvironment)
        #expect(viaEnvironment.status == 0, "\(viaEnvironment.stdout) \(viaEnvironment.stderr)")

        // A --tls-ca that is not a certificate is a usage error before anything runs.
        let bad = try await CLI.runAsync(["wallet", "present", "openid4vp://?x=y", "--tls-ca", pki.key], environment: environment)
        #expect(bad.status == 64 && bad.stderr.contains("not PEM certificates"), "\(bad.stderr)")
    }
}
