import Foundation
import TesseraJOSE
import TesseraTestSupport
import Testing
import X509

/// The production IT-Wallet client's requests (pagopa/io-react-native-wallet with io-react-native-integrity and
/// io-react-native-crypto), built by an independent Python peer (`scripts/peers/itwallet_client.py`) under its own
/// test root, against a provider on loopback: each accepted spelling gets its attestation, each tampered part is
/// refused with the error the IT-Wallet table gives.
@Suite(.serialized)
struct ProductionClientInteropTests {
    /// Case name → (status, error) the provider must answer. `nil` error: a success.
    static let expected: [String: (Int, String?)] = [
        "ios register (production client)": (204, nil),
        "ios token, pre-1.0 client (/token JSON)": (200, nil),
        "ios token, v1.0.0 client (/wallet-attestations)": (200, nil),
        "ios token, spec form, iss <WP>/instance/<tp>, aud+sub": (200, nil),
        "ios token, var+jwt, iss <WP>/<tp>": (200, nil),
        "ios token, 1.0 text: client_data with nonce": (200, nil),
        "ios token, 0.9.3 text (/wallet-attestation JSON)": (200, nil),
        "tamper: ios hardware_signature by another key": (400, "invalid_grant"),
        "tamper: ios authenticatorData counter": (400, "invalid_grant"),
        "tamper: ios authenticatorData rpIdHash": (400, "invalid_grant"),
        "tamper: ios counter not increasing": (400, "invalid_grant"),
        "tamper: client_data names another key": (400, "invalid_grant"),
        "tamper: request signed by another key than cnf": (400, "invalid_grant"),
        "tamper: typ JWT": (400, "invalid_request"),
        "tamper: wp-war+jwt at /token": (400, "invalid_request"),
        "tamper: iss names another key": (400, "invalid_grant"),
        "tamper: aud names another provider": (400, "invalid_grant"),
        "tamper: sub names another provider": (400, "invalid_grant"),
        "tamper: lifetime two hours": (400, "invalid_grant"),
        "tamper: war+jwt with nonce": (400, "invalid_request"),
        "tamper: wp-war+jwt with challenge": (400, "bad_request"),
        "tamper: 1.0 request signed by another key than cnf": (403, "invalid_request"),
        "tamper: 1.0 iss names another key": (403, "invalid_request"),
        "tamper: war+jwt at /wallet-attestations": (400, "invalid_request"),
        "ios token before a replay of its challenge": (200, nil),
        "tamper: challenge used twice": (400, "invalid_grant"),
        "tamper: unknown hardware_key_tag": (403, "invalid_grant"),
        "ios 1.0 token before a replay of its nonce": (200, nil),
        "tamper: 1.0 nonce used twice": (403, "invalid_request"),
        "tamper: 1.0 unknown hardware_key_tag": (404, "not_found"),
        "android register (Base64.DEFAULT chain)": (204, nil),
        "android token, pre-1.0 client (/token JSON)": (200, nil),
        "android token, v1.0.0 client (/wallet-attestations)": (200, nil),
        "tamper: android hardware_signature by another key": (400, "invalid_grant"),
        "tamper: android requestHash of other data": (403, "invalid_grant"),
        "tamper: android integrity token signature": (403, "invalid_grant"),
        "tamper: android integrity token package": (403, "invalid_grant"),
        "tamper: android key attested for another challenge": (403, "integrity_check_error"),
        "tamper: android Base64.DEFAULT with a short line": (422, "validation_error"),
        "android register, 1.0 text: nonce member": (204, nil),
        "android status (production client)": (200, nil),
        "current status (production client)": (200, nil),
        "android revoke (production client PUT)": (204, nil),
        "android status after revocation": (200, nil),
        "tamper: android 1.0 token after revocation": (403, "invalid_request"),
    ]

    /// The 1.0 answers (`POST /wallet-attestations`): three formats, each checked by the peer on its own.
    static let threeFormats: Set<String> = [
        "ios token, v1.0.0 client (/wallet-attestations)", "ios token, 1.0 text: client_data with nonce",
        "ios 1.0 token before a replay of its nonce", "android token, v1.0.0 client (/wallet-attestations)",
    ]

    /// The status resources' `is_revoked` the provider must answer.
    static let revoked: [String: Bool] = [
        "android status (production client)": false, "current status (production client)": false,
        "android status after revocation": true,
    ]

    /// `inProcess`: the provider library on loopback; otherwise `tessera provider serve` trusting the peer's root
    /// with `--trust-test-attestation-root`, as an operator would run it.
    @Test(arguments: [true, false])
    func theProductionClientsRequestsGetAttestationsAndEveryTamperingIsRefused(inProcess: Bool) async throws {
        let python = try #require(PythonPeer.interpreter, Comment(rawValue: PythonPeer.missingMessage))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("itwallet-peer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rootPath = try await Self.peerAsync(python, ["make-root", "--dir", directory.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let root = try Certificate(pemEncoded: String(contentsOfFile: rootPath, encoding: .utf8))
        let local = try await ProviderFixture(peerRoot: root)
        defer { Task { await local.shutdown() } }
        var process: ServiceProcess?
        if !inProcess {
            process = try await ProviderProcess.start([
                "--trust-test-attestation-root", rootPath, "--apple-app", ProviderFixture.appleApp.rpID,
                "--android-app", "\(ProviderFixture.application.packageName):\(Self.hex(ProviderFixture.application.signingCertificateDigests.first ?? Data()))",
                "--password-cost", "m=64,t=1,p=1",
            ], home: directory.appendingPathComponent("home"))
        }
        defer { process?.stop() }
        let fixture = process.map { local.at($0.baseURL) } ?? local
        // The relying party's one trust input for the attestations: the signing chain's root (the process keeps its
        // test chain in its provider directory).
        let signingRoot = directory.appendingPathComponent(inProcess ? "signing-root.pem" : "home/provider/signing/root.pem")
        if inProcess { try local.signingRoot.serializeAsPEM().pemString.write(to: signingRoot, atomically: true, encoding: .utf8) }
        let account = try await fixture.account()
        let output = try await Self.peerAsync(python, [
            "run", "--dir", directory.path, "--provider", fixture.baseURL, "--session=\(account.session)",
            "--apple-app", ProviderFixture.appleApp.rpID, "--android-package", ProviderFixture.application.packageName,
            "--android-signer", "test signer", "--signing-root", signingRoot.path,
        ])
        var seen = Set<String>()
        for line in output.split(separator: "\n") {
            let result = try #require(try JSONValue.parse(Data(line.utf8)).objectValue)
            let name = try #require(result["case"]?.stringValue)
            seen.insert(name)
            let expectation = try #require(Self.expected[name], "unexpected case \(name)")
            let status = result["status"]?.int64Value.map(Int.init)
            #expect(status == expectation.0, "\(name): \(result)")
            #expect(result["error"]?.stringValue == expectation.1, "\(name): \(result)")
            if let revoked = Self.revoked[name] {
                #expect(result["is_revoked"]?.boolValue == revoked, "\(name): \(result)")
            } else if expectation.0 == 200 {
                // The attestation binds the request's key, in the shape each transport answers with.
                #expect(result["attestation_bound"]?.boolValue == true, "\(name): \(result)")
                let jwt = name.contains("spec form") || name.contains("var+jwt") || name.contains("0.9.3")
                #expect(result["content_type"]?.stringValue == (jwt ? "application/jwt" : "application/json"), "\(name): \(result)")
                // A 1.0 answer: each of the three formats passed the peer's own checks, and each check refuses a
                // copy with one signed part changed.
                if Self.threeFormats.contains(name) {
                    #expect(result["formats"] == ["jwt": "ok", "dc+sd-jwt": "ok", "mso_mdoc": "ok", "tampered": "ok"], "\(name): \(result)")
                }
            }
        }
        #expect(seen == Set(Self.expected.keys), "cases not run: \(Set(Self.expected.keys).subtracting(seen))")
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func peerAsync(_ python: String, _ arguments: [String]) async throws -> String {
        try await offCooperativePool { try peer(python, arguments) }
    }

    /// Runs the peer; its standard output, or an error with its standard error.
    static func peer(_ python: String, _ arguments: [String]) throws -> String {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/peers/itwallet_client.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError("itwallet_client.py \(arguments.first ?? "") exited \(process.terminationStatus): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
