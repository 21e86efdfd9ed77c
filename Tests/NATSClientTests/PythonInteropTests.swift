import Foundation
import Testing
import TesseraCore

@testable import NATSClient

/// Interop with the PyPI `nkeys` (PyNaCl) and `nats-py` packages through Fixtures/nats_peer.py, both ways.
///
/// The Python peer runs from `TESSERA_PYTHON` or `<package root>/.build/pyenv/bin/python3` (set up by scripts/test).
/// If neither exists these tests fail; they are never skipped.
@Suite("nkeys / nats-py interop", .serialized, .timeLimit(.minutes(2)))
struct PythonInteropTests {
    struct PeerResult {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Starts the peer; records a failure (not a skip) when Python or the script is missing.
    static func launch(_ arguments: [String]) throws -> (Process, Pipe, Pipe)? {
        guard let python = PeerPython.interpreter, let script = PeerPython.script else {
            Issue.record("\(PeerPython.missingMessage)")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    static func finish(_ process: Process, _ out: Pipe, _ err: Pipe) async -> PeerResult {
        await Task.detached {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return PeerResult(
                status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                stderr: String(decoding: stderr, as: UTF8.self))
        }.value
    }

    func peer(_ arguments: [String]) async throws -> PeerResult? {
        guard let (process, out, err) = try Self.launch(arguments) else { return nil }
        let result = await Self.finish(process, out, err)
        if result.status == 2 { Issue.record("Python peer unusable: \(result.stderr)") }
        return result
    }

    @Test("JWTs and seeds minted here verify with Python nkeys; a tampered JWT does not")
    func oursInPython() async throws {
        let fixture = try OperatorFixture()
        let user = try fixture.user(
            name: "bootstrap", publish: NATSPermission(allow: ["OwnerSpace.g.forVault.app.bootstrap"]),
            subscribe: NATSPermission(allow: ["OwnerSpace.g.forApp.app.bootstrap.>"]),
            expires: Date().addingTimeInterval(600))
        for (jwt, issuer, subject) in [
            (fixture.operatorJWT, fixture.operatorKey.publicKeyString, fixture.operatorKey.publicKeyString),
            (fixture.appAccountJWT, fixture.operatorKey.publicKeyString, fixture.appAccount.publicKeyString),
            (user.jwt, fixture.appAccount.publicKeyString, user.userKey.publicKeyString),
        ] {
            let result = try #require(try await peer(["verify-jwt", jwt]))
            #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
            let claims = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            #expect(claims["iss"] as? String == issuer)
            #expect(claims["sub"] as? String == subject)
        }
        let userClaims = try #require(try await peer(["verify-jwt", user.jwt]))
        #expect(userClaims.stdout.contains("\"allow\": [\"OwnerSpace.g.forVault.app.bootstrap\"]"))

        // A signature over other claims is refused by Python too.
        let parts = user.jwt.split(separator: ".").map(String.init)
        let other = try fixture.user(name: "other").jwt.split(separator: ".").map(String.init)
        let tampered = try #require(try await peer(["verify-jwt", parts[0] + "." + other[1] + "." + parts[2]]))
        #expect(tampered.status == 1)
        #expect(tampered.lines == ["invalid signature"])

        for key in [fixture.operatorKey, fixture.appAccount, user.userKey] {
            let seed = try #require(key.seedString)
            let result = try #require(try await peer(["seed-info", seed]))
            #expect(result.lines == [key.publicKeyString])
        }
    }

    @Test("a seed made by Python nkeys works here: same public key, its signature verifies, it can log in")
    func pythonSeedHere() async throws {
        let message = "signed by python nkeys"
        let result = try #require(try await peer(["make-seed", message]))
        try #require(result.lines.count == 3, "\(result.stdout) \(result.stderr)")
        let pair = try NKeyPair(seed: result.lines[0], expected: .user)
        #expect(pair.publicKeyString == result.lines[1])
        let signature = try #require(Base64URL.decodeIfValid(result.lines[2]))
        #expect(pair.verify(signature, for: Data(message.utf8)))
        #expect(!pair.verify(signature, for: Data("something else".utf8)))

        let fixture = try OperatorFixture()
        let server = try NATSServerProcess(fixture: fixture)
        let jwt = try UserClaims(user: pair.publicKeyString, name: "py-seed")
            .encode(signedBy: fixture.appAccount, clock: SystemClock())
        let client = try await connectedClient([server.url], try NATSCredentials(jwt: jwt, userKey: pair))
        try await client.flush()
        await client.close()
    }

    @Test("nats-py with a creds file minted here: requests and messages both ways")
    func messagesBothWays() async throws {
        let fixture = try OperatorFixture()
        let server = try NATSServerProcess(fixture: fixture)
        let credentials = try fixture.user(name: "python")
        let credsURL = server.directory.appendingPathComponent("python.creds")
        try credentials.credsFile.write(to: credsURL, atomically: true, encoding: .utf8)

        let client = try await connectedClient([server.url], try fixture.user(name: "swift"))
        let service = try await client.subscribe(to: "interop.swift.echo")
        let (answered, answeredContinuation) = AsyncStream<String>.makeStream()
        let serving = Task {
            for try await request in service {
                guard let replyTo = request.replyTo else { continue }
                try await client.publish(Data("swift:".utf8) + request.payload, to: replyTo)
                answeredContinuation.yield(String(decoding: request.payload, as: UTF8.self))
            }
        }
        try await client.flush()

        guard let (process, out, err) = try Self.launch(["interop", server.url, credsURL.path]) else { return }
        // nats-py answers once it has subscribed (until then the server reports no responders).
        var reply: NATSMessage?
        for _ in 0..<100 where reply == nil {
            reply = try? await client.request(Data("hello from swift".utf8), to: "interop.py.echo", timeout: .seconds(1))
            if reply == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(reply?.payload == Data("py:hello from swift".utf8))
        let pythonAsked = try await withTimeout(.seconds(20), "nats-py request") {
            for await payload in answered { return payload }
            return ""
        }
        #expect(pythonAsked == "hello from python")
        try await client.publish(Data(), to: "interop.done")
        try await client.flush()
        let result = await Self.finish(process, out, err)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.lines.contains("reply: swift:hello from python"), "\(result.stdout)")
        serving.cancel()
        await client.close()
    }
}
