import Crypto
import DeviceAttestation
import Foundation
import OpenID4VP
import TesseraJOSE
import Testing
import WalletInstanceKit
import TesseraHTTP

/// A corpus of bad input against the JSON endpoints: never a 5xx, always `{error, error_description}` as JSON, with
/// the status and code of the spec's table.
@Suite(.serialized)
struct BadInputTests {
    /// One bad request and what the provider must answer.
    struct Case: Sendable {
        let name: String
        let method: HTTPRequest.Method
        let path: String
        let contentType: String?
        let body: Data?
        let status: Int
        let error: String
    }

    @Test func registrationCorpus() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let key = P256.Signing.PrivateKey()
        var cases: [Case] = []
        func registration(_ name: String, _ attestation: Data, tag: String, status: Int, error: String) async throws {
            let challenge = try await fixture.nonce()
            let body: JSONObject = [
                "challenge": .string(challenge), "key_attestation": .string(attestation.base64EncodedString()),
                "hardware_key_tag": .string(tag),
            ]
            cases.append(Case(name: name, method: .post, path: "/wallet-instance", contentType: "application/json", body: body.serialized(), status: status, error: error))
        }

        // App Attest: truncated CBOR at several points, another fmt, the x5c certificates swapped.
        let challenge = try await fixture.nonce()
        let apple = try fixture.appleAuthority.attest(
            publicKey: key.publicKey, app: ProviderFixture.appleApp, environment: .production,
            clientDataHash: Data(SHA256.hash(data: Data(challenge.utf8))), at: fixture.clock.now())
        let tag = apple.keyID.base64EncodedString()
        for cut in [1, 10, apple.attestationObject.count / 2, apple.attestationObject.count - 1] {
            try await registration("truncated App Attest CBOR (\(cut) bytes)", apple.attestationObject.prefix(cut), tag: tag, status: 422, error: "validation_error")
        }
        let packed = Data(apple.attestationObject).replacingFirst(Data("apple-appattest".utf8), with: Data("packed-appattst".utf8))
        try await registration("fmt is not apple-appattest", packed, tag: tag, status: 422, error: "validation_error")
        try await registration("App Attest for another challenge", apple.attestationObject, tag: tag, status: 403, error: "integrity_check_error")
        try await registration("App Attest with a keyId that is not 32 bytes", apple.attestationObject, tag: "AAAA", status: 422, error: "validation_error")

        // Android: chains with the certificates swapped, truncated, or empty.
        let androidChallenge = try await fixture.nonce()
        let chain = try fixture.authority.attest(
            publicKey: key.publicKey, challenge: Data(androidChallenge.utf8), application: ProviderFixture.application, at: fixture.clock.now())
        func android(_ certificates: [Data]) -> Data { Data(certificates.map { $0.base64EncodedString() }.joined(separator: ",").utf8) }
        try await registration("Android chain with leaf and intermediate swapped", android([chain[1], chain[0], chain[2]]), tag: "swapped", status: 403, error: "invalid_request")
        try await registration("Android chain without its intermediate", android([chain[0], chain[2]]), tag: "short", status: 403, error: "invalid_request")
        try await registration("Android leaf truncated", android([chain[0].prefix(chain[0].count - 9), chain[1], chain[2]]), tag: "cut", status: 422, error: "validation_error")
        try await registration("neither format", Data("hello".utf8), tag: "junk", status: 422, error: "validation_error")

        // The body itself.
        let valid: JSONObject = ["challenge": "c", "key_attestation": "a", "hardware_key_tag": "t"]
        let json = "application/json"
        cases += [
            Case(name: "duplicate keys", method: .post, path: "/wallet-instance", contentType: json,
                 body: Data(#"{"challenge":"a","challenge":"b","key_attestation":"x","hardware_key_tag":"t"}"#.utf8), status: 400, error: "bad_request"),
            Case(name: "a fourth field", method: .post, path: "/wallet-instance", contentType: json,
                 body: Data(#"{"challenge":"a","key_attestation":"x","hardware_key_tag":"t","extra":1}"#.utf8), status: 400, error: "bad_request"),
            Case(name: "a field of the wrong type", method: .post, path: "/wallet-instance", contentType: json,
                 body: Data(#"{"challenge":1,"key_attestation":"x","hardware_key_tag":"t"}"#.utf8), status: 400, error: "bad_request"),
            Case(name: "text/plain", method: .post, path: "/wallet-instance", contentType: "text/plain", body: valid.serialized(), status: 400, error: "bad_request"),
            Case(name: "no content type", method: .post, path: "/wallet-instance", contentType: nil, body: valid.serialized(), status: 400, error: "bad_request"),
            Case(name: "a JSON array", method: .post, path: "/wallet-instance", contentType: json, body: Data("[1,2]".utf8), status: 400, error: "bad_request"),
            Case(name: "truncated JSON", method: .post, path: "/wallet-instance", contentType: json, body: Data(#"{"challenge":"#.utf8), status: 400, error: "bad_request"),
            Case(name: "deeply nested JSON", method: .post, path: "/wallet-instance", contentType: json,
                 body: Data((String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)).utf8), status: 400, error: "bad_request"),
            Case(name: "100 KB of JSON", method: .post, path: "/wallet-instance", contentType: json,
                 body: (["challenge": .string(String(repeating: "a", count: 100_000)), "key_attestation": "x", "hardware_key_tag": "t"] as JSONObject).serialized(),
                 status: 400, error: "bad_request"),
            Case(name: "oversized body", method: .post, path: "/wallet-instance", contentType: json,
                 body: Data(repeating: 0x20, count: 400_000), status: 413, error: "invalid_request"),
            Case(name: "unknown challenge", method: .post, path: "/wallet-instance", contentType: json, body: valid.serialized(), status: 403, error: "invalid_request"),
            Case(name: "token: JSON instead of a form", method: .post, path: "/token", contentType: json, body: Data("{}".utf8), status: 400, error: "invalid_request"),
            Case(name: "token: a repeated parameter", method: .post, path: "/token", contentType: "application/x-www-form-urlencoded",
                 body: Data("grant_type=a&grant_type=b&assertion=x".utf8), status: 400, error: "invalid_request"),
            Case(name: "token: another grant type", method: .post, path: "/token", contentType: "application/x-www-form-urlencoded",
                 body: Data("grant_type=client_credentials&assertion=x".utf8), status: 400, error: "unsupported_grant_type"),
            Case(name: "token: not a JWT", method: .post, path: "/token", contentType: "application/x-www-form-urlencoded",
                 body: Data("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=%25%00".utf8), status: 400, error: "invalid_request"),
            Case(name: "token: oversized", method: .post, path: "/token", contentType: "application/x-www-form-urlencoded",
                 body: Data(repeating: 0x61, count: 400_000), status: 413, error: "invalid_request"),
            Case(name: "unknown path", method: .get, path: "/no-such-thing", contentType: nil, body: nil, status: 404, error: "not_found"),
            Case(name: "wrong method", method: .post, path: "/nonce", contentType: nil, body: nil, status: 404, error: "not_found"),
            Case(name: "api: duplicate keys in sign-up", method: .post, path: "/api/accounts", contentType: json,
                 body: Data(#"{"email":"a@b.c","email":"d@e.f","password":"correct horse battery"}"#.utf8), status: 400, error: "invalid_request"),
        ]

        var failures: [String] = []
        for item in cases {
            let answer = try await fixture.request(item.method, item.path, body: item.body, contentType: item.contentType, session: account.session)
            let wellFormed = answer.header("Content-Type")?.hasPrefix("application/json") == true
                && answer.json?["error_description"]?.stringValue != nil
            if answer.status >= 500 || !wellFormed || answer.status != item.status || answer.error != item.error {
                failures.append("\(item.name): \(answer.status) \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
            if item.path == "/wallet-instance", answer.header("Cache-Control") != "no-store" { failures.append("\(item.name): no Cache-Control: no-store") }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}

extension Data {
    /// The bytes with the first occurrence of `pattern` replaced (same length expected by the callers).
    func replacingFirst(_ pattern: Data, with replacement: Data) -> Data {
        guard let range = range(of: pattern) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
