import Foundation
import Testing

/// `tessera attestation verify` on every real sample of the shared attestation vectors (copied into
/// Tests/DeviceAttestationTests/Fixtures) and Apple's 2026 validation guide sample, as an operator would run it.
@Suite struct AttestationCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("DeviceAttestationTests/Fixtures")

    static func json(_ name: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    struct Missing: Error, CustomStringConvertible { let description: String }

    /// `object[key]` as a `T`, or an error naming the key.
    static func get<T>(_ object: [String: Any]?, _ key: String, as type: T.Type = T.self) throws -> T {
        guard let value = object?[key] as? T else { throw Missing(description: "\(key) missing or not \(T.self)") }
        return value
    }

    static func base64(_ text: String) throws -> Data {
        guard let data = Data(base64Encoded: text) else { throw Missing(description: "not base64") }
        return data
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func temporary(_ contents: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-attestation-\(UUID().uuidString)")
        try Data(contents.utf8).write(to: file)
        return file
    }

    static func verify(_ arguments: [String]) async throws -> (status: Int32, output: [String: Any]) {
        let result = try await CLI.runAsync(["attestation", "verify", "--json"] + arguments)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (result.status, try #require(object, "no JSON: \(result.stdout) \(result.stderr)"))
    }

    static func codes(_ output: [String: Any]) -> [String] {
        (output["failures"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
    }

    @Test func everyAppleSampleVerifies() async throws {
        let samples = try #require(try Self.json("apple-app-attest.json") as? [[String: Any]])
        var checked = 0
        for sample in samples {
            guard let attestation = sample["attestation"] as? [String: Any] else { continue }
            let expected = try #require(sample["expected"] as? [String: Any])
            let id = sample["id"] as? String ?? "?"
            let file = try Self.temporary(try Self.get(attestation, "attestation_object_b64", as: String.self))
            defer { try? FileManager.default.removeItem(at: file) }
            let hash = try Self.base64(try Self.get(attestation, "client_data_hash_b64"))
            let app = try Self.get(expected, "team_id", as: String.self) + "." + Self.get(expected, "bundle_id", as: String.self)
            let common = [
                "--platform", "ios", "--attestation", file.path, "--key-id", try Self.get(attestation, "key_id_b64", as: String.self),
                "--client-data-hash", Self.hex(hash), "--app", app, "--at", try Self.get(sample, "validation_time", as: String.self),
            ]
            let run = try await Self.verify(common + ["--development"])
            #expect(run.status == 0, "\(id): \(run.output)")
            #expect(run.output["valid"] as? Bool == true, "\(id)")
            let facts = try #require(run.output["facts"] as? [String: Any])
            #expect(facts["key_id"] as? String == attestation["key_id_b64"] as? String, "\(id)")
            #expect(facts["environment"] as? String == expected["environment"] as? String, "\(id)")
            if expected["environment"] as? String == "development" {
                let production = try await Self.verify(common)
                #expect(production.status == 1 && Self.codes(production.output) == ["environment_not_allowed"], "\(id)")
            }
            checked += 1
        }
        #expect(checked == 13)
    }

    @Test func applesGuideSampleVerifiesWithItsExtensions() async throws {
        let guide = try #require(try Self.json("apple-app-attest-2026-guide.json") as? [String: Any])
        let attestation = try #require(guide["attestation"] as? [String: Any])
        // The raw CBOR this time (the command takes raw or base64).
        let object = try Self.base64(try Self.get(attestation, "attestation_object_b64"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tessera-guide-\(UUID().uuidString).cbor")
        try object.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let common = [
            "--platform", "ios", "--attestation", file.path, "--key-id", try Self.get(attestation, "key_id_b64", as: String.self),
            "--app", "1234567890.com.example.myapp", "--at", try Self.get(guide, "validation_time", as: String.self),
        ]
        let run = try await Self.verify(common + ["--client-data-hash", Self.hex(Data("example_server_challenge".utf8))])
        #expect(run.status == 0, "\(run.output)")
        let facts = try #require(run.output["facts"] as? [String: Any])
        let extensions = try #require(facts["authenticator_data_extensions"] as? [String: Any])
        #expect(extensions["encoding"] as? String == "apple_unflagged")
        #expect(extensions["bundle_version"] as? String == "1")
        #expect(extensions["validation_category"] as? Int == 1)
        #expect((facts["extended_key_usages"] as? [String]) == ["1.2.840.113635.100.4.24"])
        #expect((facts["certificate_extensions"] as? [String])?.contains("1.2.840.113635.100.8.6") == true)
        // --challenge hashes as the provider does: the guide bound the raw bytes, so that is a nonce mismatch.
        let hashed = try await Self.verify(common + ["--challenge", "example_server_challenge"])
        #expect(hashed.status == 1 && Self.codes(hashed.output) == ["nonce_mismatch"])
    }

    @Test func everyAndroidSampleGivesItsExpectedFailures() async throws {
        let samples = try #require(try Self.json("android-key-attestation.json") as? [[String: Any]])
        #expect(samples.count == 27)
        for (index, sample) in samples.enumerated() {
            let id = sample["id"] as? String ?? "?"
            let chain = try #require(sample["certificate_chain_b64"] as? [String])
            // The three spellings in turn: PEM, the wire's one-line list, Android's Base64.DEFAULT list.
            let contents: String
            switch index % 3 {
            case 0:
                // As openssl writes PEM: 64-character lines.
                contents = try chain.map { text in
                    let body = try Self.base64(text).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
                    return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
                }.joined()
            case 1:
                contents = Data(chain.joined(separator: ",").utf8).base64EncodedString()
            default:
                let inner = chain.map { Data(base64Encoded: $0).map { $0.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n" } ?? "" }
                contents = Data(inner.joined(separator: ",").utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed]) + "\n"
            }
            let file = try Self.temporary(contents)
            defer { try? FileManager.default.removeItem(at: file) }
            let expected = try #require(sample["expected"] as? [String: Any])
            let challenge = try Self.base64(try Self.get(expected["challenge"] as? [String: Any], "b64"))
            let application = try #require(expected["attestation_application_id"] as? [String: Any])
            let package = try #require(expected["package_name"] as? String)
            var arguments = [
                "--platform", "android", "--attestation", file.path, "--client-data-hash", Self.hex(challenge),
                "--at", try Self.get(sample, "validation_time", as: String.self),
            ]
            let digests = try Self.get(application, "signature_digests_sha256_b64", as: [String].self)
            for digest in digests { arguments += ["--android-app", "\(package):\(Self.hex(try Self.base64(digest)))"] }
            if digests.isEmpty { arguments += ["--android-app", package] }
            var revocation: URL?
            if let entries = (sample["revocation_list"] as? [String: Any])?["entries"] {
                let list = try Self.temporary(String(decoding: try JSONSerialization.data(withJSONObject: ["entries": entries]), as: UTF8.self))
                arguments += ["--revocation-list", list.path]
                revocation = list
            }
            defer { revocation.map { try? FileManager.default.removeItem(at: $0) } }
            let run = try await Self.verify(arguments)
            let result = try #require(sample["expected_result"] as? [String: Any])
            let failures = (result["all_failures"] as? [String] ?? []).map { String($0.split(separator: " ").first ?? "") }
            #expect(Self.codes(run.output) == failures, "\(id): \(run.output)")
            #expect(run.status == (failures.isEmpty ? 0 : 1), "\(id)")
        }
    }
}
