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
        "tamper: wp-war+jwt with challenge": (400, "invalid_request"),
        "ios token before a replay of its challenge": (200, nil),
        "tamper: challenge used twice": (400, "invalid_grant"),
        "tamper: unknown hardware_key_tag": (403, "invalid_grant"),
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
        let account = try await fixture.account()
        let output = try await Self.peerAsync(python, [
            "run", "--dir", directory.path, "--provider", fixture.baseURL, "--session=\(account.session)",
            "--apple-app", ProviderFixture.appleApp.rpID, "--android-package", ProviderFixture.application.packageName,
            "--android-signer", "test signer",
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
            if expectation.0 == 200 {
                // The attestation binds the request's key, in the shape each transport answers with.
                #expect(result["attestation_bound"]?.boolValue == true, "\(name): \(result)")
                let form = name.contains("spec form") || name.contains("var+jwt")
                #expect(result["content_type"]?.stringValue == (form ? "application/jwt" : "application/json"), "\(name): \(result)")
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

// MARK: 1.3 and 1.5 (the peer's `attestations` command)

extension ProductionClientInteropTests {
    /// Case name → (status, error). 200 cases must also carry a document verified by the peer (x5c to the signing
    /// root, jwcrypto) and bound to the requested key(s).
    static let attestationCases: [String: (Int, String?)] = {
        var cases: [String: (Int, String?)] = [
            "ios register": (204, nil), "android register": (204, nil),
            "1.3 tamper: iss names another instance": (403, "invalid_request"),
            "1.3 tamper: client_data over another nonce": (403, "invalid_request"),
            "1.3 tamper: the combined attestations-request+jwt": (400, "invalid_request"),
            "1.3 tamper: a key signed by another key": (403, "invalid_request"),
            "1.3 tamper: a key attested for another nonce": (403, "invalid_request"),
            "1.5 tamper: an Android key without its attestation": (403, "invalid_request"),
            "1.5 tamper: wua-request+jwt at the 1.5 endpoint": (400, "invalid_request"),
            "1.5 tamper: unknown hardware_key_tag": (404, "not_found"),
            "pdnd: notify user death": (207, nil),
            "pdnd: the same call replayed": (401, "invalid_token"),
            "1.5 android wia after the user's death": (404, "not_found"),
        ]
        for platform in ["ios", "android"] {
            cases["1.3 \(platform) wia (text/plain, iss = hardware_key_tag)"] = (200, nil)
            cases["1.3 \(platform) key attestation (/key-attestations)"] = (200, nil)
            cases["1.3 \(platform) wallet unit attestation (/wallet-unit-attestations)"] = (200, nil)
            cases["1.5 \(platform) wia (JSON assertion, iss = thumbprint)"] = (200, nil)
            cases["1.5 \(platform) key attestation"] = (200, nil)
        }
        return cases
    }()

    /// The production client's 1.3 requests and the 1.5 text's, from the independent peer, against the provider
    /// library and against `tessera provider serve` (which also takes the PID Provider's PDND call, trusting the
    /// peer's root with `--pdnd-trust`).
    @Test(arguments: [true, false])
    func theProductionClients13AndThe15TextsRequestsGetVerifiableAttestations(inProcess: Bool) async throws {
        let python = try #require(PythonPeer.interpreter, Comment(rawValue: PythonPeer.missingMessage))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("itwallet-peer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rootPath = try await Self.peerAsync(python, ["make-root", "--dir", directory.path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let root = try Certificate(pemEncoded: String(contentsOfFile: rootPath, encoding: .utf8))
        let local = try await ProviderFixture(peerRoot: root)
        defer { Task { await local.shutdown() } }
        var process: ServiceProcess?
        let home = directory.appendingPathComponent("home")
        var signingRoot = directory.appendingPathComponent("signing-root.pem").path
        if inProcess {
            try local.signingRoot.serializeAsPEM().pemString.write(toFile: signingRoot, atomically: true, encoding: .utf8)
        } else {
            process = try await ProviderProcess.start([
                "--trust-test-attestation-root", rootPath, "--pdnd-trust", rootPath, "--apple-app", ProviderFixture.appleApp.rpID,
                "--android-app", "\(ProviderFixture.application.packageName):\(Self.hex(ProviderFixture.application.signingCertificateDigests.first ?? Data()))",
                "--password-cost", "m=64,t=1,p=1",
            ], home: home)
            signingRoot = home.appendingPathComponent("provider/signing/root.pem").path
        }
        defer { process?.stop() }
        let fixture = process.map { local.at($0.baseURL) } ?? local
        let account = try await fixture.account()
        var arguments = [
            "attestations", "--dir", directory.path, "--provider", fixture.baseURL, "--session=\(account.session)",
            "--apple-app", ProviderFixture.appleApp.rpID, "--android-package", ProviderFixture.application.packageName,
            "--android-signer", "test signer", "--signing-root", signingRoot,
        ]
        if !inProcess { arguments.append("--pdnd") }
        let output = try await Self.peerAsync(python, arguments)
        var seen = Set<String>()
        for line in output.split(separator: "\n") {
            let result = try #require(try JSONValue.parse(Data(line.utf8)).objectValue)
            let name = try #require(result["case"]?.stringValue)
            seen.insert(name)
            let expectation = try #require(Self.attestationCases[name], "unexpected case \(name)")
            #expect(result["status"]?.int64Value.map(Int.init) == expectation.0, "\(name): \(result)")
            #expect(result["error"]?.stringValue == expectation.1, "\(name): \(result)")
            guard expectation.0 == 200 else { continue }
            #expect(result["verified"]?.boolValue == true && result["bound"]?.boolValue == true, "\(name): \(result)")
            let claims = result["claims"]?.objectValue ?? [:]
            // 1.3 names the provider in iss; 1.5 has none and points at its status list.
            #expect((claims["iss"] != nil) == name.hasPrefix("1.3"), "\(name)")
            if name.hasPrefix("1.5") {
                #expect(claims["client_status"] != nil || claims["key_storage_status"] != nil, "\(name)")
            }
        }
        var expected = Set(Self.attestationCases.keys)
        if inProcess { expected.subtract(["pdnd: notify user death", "pdnd: the same call replayed", "1.5 android wia after the user's death"]) }
        #expect(seen == expected, "cases not run: \(expected.subtracting(seen))")
    }
}
