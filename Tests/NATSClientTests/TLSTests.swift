import Foundation
import NIOSSL
import Testing

@testable import NATSClient

/// TLS (NIOSSL) against nats-server configured with a certificate made for the test by the openssl command line tool.
@Suite("NATSClient over TLS", .serialized, .timeLimit(.minutes(1)))
struct TLSTests {
    /// A self-signed P-256 certificate for localhost and 127.0.0.1, and its key, in `directory`.
    static func makeCertificate(in directory: URL, name: String) throws -> (certificate: URL, key: URL) {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificate = directory.appendingPathComponent("\(name).pem")
        let key = directory.appendingPathComponent("\(name)-key.pem")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key.path, "-out", certificate.path, "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServerSetupError.notReady("openssl req failed") }
        return (certificate, key)
    }

    @Test("TLS with the server's certificate trusted; refused without TLS or with another root")
    func tls() async throws {
        let fixture = try OperatorFixture()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nats-tls-\(UUID().uuidString)")
        let pem = try Self.makeCertificate(in: directory, name: "server")
        let server = try NATSServerProcess(fixture: fixture, directory: directory, tls: pem)
        let url = "tls://localhost:\(server.port)"

        var trusting = TLSConfiguration.makeClientConfiguration()
        trusting.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(pem.certificate.path))
        let client = try await connectedClient([url], try fixture.user()) { $0.tls = trusting }
        let subscription = try await client.subscribe(to: "secure.>")
        try await client.publish(Data("over tls".utf8), to: "secure.channel")
        #expect(try await collect(subscription, count: 1).first?.payload == Data("over tls".utf8))
        await client.close()

        // The server requires TLS: a client without a TLS configuration is told so.
        await #expect(throws: NATSError.tlsFailure("the server requires TLS and no TLS configuration was given")) {
            _ = try await connectedClient(["nats://127.0.0.1:\(server.port)"], try fixture.user())
        }
        // A certificate from another root is not trusted.
        let otherRoot = try Self.makeCertificate(in: directory, name: "other")
        var distrusting = TLSConfiguration.makeClientConfiguration()
        distrusting.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(otherRoot.certificate.path))
        do {
            _ = try await connectedClient([url], try fixture.user()) { $0.tls = distrusting }
            Issue.record("connected although the server's certificate is not trusted")
        } catch let error as NATSError {
            guard case .tlsFailure = error else { Issue.record("unexpected \(error)"); return }
        }
    }
}
