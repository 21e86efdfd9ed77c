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
        let provider = try await PeerProvider.start(python: python, inProcess: inProcess)
        defer { Task { await provider.stop() } }
        let account = try await provider.fixture.account()
        let output = try await Self.peerAsync(python, provider.peerArguments("run", session: account.session))
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
        for form in ["jwt", "cwt"] {
            for name in Self.statusListCases.keys { cases["\(name) (\(form))"] = (200, nil) }
        }
        for platform in ["ios", "android"] {
            cases["1.3 \(platform) wia (text/plain, iss = hardware_key_tag)"] = (200, nil)
            cases["1.3 \(platform) key attestation (/key-attestations)"] = (200, nil)
            cases["1.3 \(platform) wallet unit attestation (/wallet-unit-attestations)"] = (200, nil)
            cases["1.5 \(platform) wia (JSON assertion, iss = thumbprint)"] = (200, nil)
            cases["1.5 \(platform) key attestation"] = (200, nil)
        }
        return cases
    }()

    /// The peer's reads of the status list (case name without its form → the statuses at the android instance's
    /// 1.5 WIA and Key Attestation indices, or at the ios instance's): VALID, then INVALID once the user's death
    /// revoked the instance, and the same user's other instance with it.
    static let statusListCases: [String: [Int64]] = [
        "status list: the android 1.5 WIA and Key Attestation entries": [0, 0],
        "status list: the same entries after the user's death": [1, 1],
        "status list: the ios instance's entries (the same user's)": [1, 1],
    ]

    /// The production client's 1.3 requests and the 1.5 text's, from the independent peer, against the provider
    /// library and against `tessera provider serve` (which also takes the PID Provider's PDND call, trusting the
    /// peer's root with `--pdnd-trust`).
    @Test(arguments: [true, false])
    func theProductionClients13AndThe15TextsRequestsGetVerifiableAttestations(inProcess: Bool) async throws {
        let python = try #require(PythonPeer.interpreter, Comment(rawValue: PythonPeer.missingMessage))
        let provider = try await PeerProvider.start(python: python, inProcess: inProcess) { ["--pdnd-trust", $0] }
        defer { Task { await provider.stop() } }
        let account = try await provider.fixture.account()
        var arguments = provider.peerArguments("attestations", session: account.session)
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
            if let statuses = Self.statusListCases.first(where: { name.hasPrefix($0.key + " (") })?.value {
                // Read by the peer's own TSL reader: signed by the x5c / x5chain leaf, chaining to the signing root.
                #expect(result["verified"]?.boolValue == true && result["sub_matches"]?.boolValue == true, "\(name): \(result)")
                #expect(result["statuses"] == .array(statuses.map { .integer($0) }), "\(name): \(result)")
                continue
            }
            #expect(result["verified"]?.boolValue == true && result["bound"]?.boolValue == true, "\(name): \(result)")
            let claims = result["claims"]?.objectValue ?? [:]
            // 1.3 names the provider in iss; 1.5 has none and points at its status list.
            #expect((claims["iss"] != nil) == name.hasPrefix("1.3"), "\(name)")
            if name.hasPrefix("1.5") {
                #expect(claims["client_status"] != nil || claims["key_storage_status"] != nil, "\(name)")
            }
        }
        var expected = Set(Self.attestationCases.keys)
        if inProcess {
            expected.subtract(["pdnd: notify user death", "pdnd: the same call replayed", "1.5 android wia after the user's death"])
            expected = expected.filter { !$0.hasPrefix("status list: the same entries") && !$0.hasPrefix("status list: the ios instance's") }
        }
        #expect(seen == expected, "cases not run: \(expected.subtracting(seen))")
    }
}
