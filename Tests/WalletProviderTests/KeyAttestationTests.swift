import Crypto
import DeviceAttestation
import Foundation
import ITWalletProtocol
import TesseraJOSE
import Testing

/// 1.3 (`wua-request+jwt` at `/key-attestations` and `/wallet-unit-attestations`) and 1.5 (`ka-request+jwt` at
/// `/key-attestation`) Key Attestations: the attested keys in order, where they live, a status list entry per
/// attestation; and every rule of `keys_to_attest`.
@Suite(.serialized)
struct KeyAttestationTests {
    static let cases: [(String, AttestationDevice.Platform)] = ProviderDatabases.all.flatMap { db in
        AttestationDevice.Platform.allCases.map { (db, $0) }
    }

    @Test(arguments: cases)
    func keyAttestation13(database: String, platform: AttestationDevice.Platform) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, platform)
        var indices: [JSONValue] = []
        for (path, member) in [("/key-attestations", "key_attestation"), ("/wallet-unit-attestations", "wallet_unit_attestation")] {
            let keys = [P256.Signing.PrivateKey(), P256.Signing.PrivateKey()]
            let request = try device.keyAttestationRequest(.v1_3, nonce: try await fixture.nonce(), keys: keys)
            let answer = try await fixture.request(.post, path, body: Data(request.utf8), contentType: "text/plain")
            #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            let (header, claims) = try await IssuedDocument.verify(try #require(answer.json?[member]?.stringValue), fixture)
            #expect(header["typ"]?.stringValue == "key-attestation+jwt")
            #expect(claims["iss"]?.stringValue == fixture.server.baseURL)
            let attested = try #require(claims["attested_keys"]?.arrayValue).map { try JWK(json: $0.objectValue ?? [:]).thumbprintBase64URL() }
            #expect(attested == keys.map { JWK(publicKey: $0.publicKey).thumbprintBase64URL() })
            let level = platform == .ios ? "iso_18045_moderate" : "iso_18045_enhanced-basic"
            #expect(claims["key_storage"] == [.string(level), .string(level)])
            #expect(claims["user_authentication"] == ["iso_18045_moderate", "iso_18045_moderate"])
            let iat = try #require(claims["iat"]?.int64Value), exp = try #require(claims["exp"]?.int64Value)
            #expect(exp - iat == 31 * 86_400)
            let status = try #require(claims["status"]?["status_list"])
            #expect(status["uri"]?.stringValue?.hasPrefix(fixture.server.baseURL + "/status-lists/") == true)
            indices.append(status)
        }
        // A fresh entry per Key Attestation.
        #expect(indices[0] != indices[1])
    }

    @Test(arguments: cases)
    func keyAttestation15(database: String, platform: AttestationDevice.Platform) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, platform)
        let keys = (0..<3).map { _ in P256.Signing.PrivateKey() }
        let request = try device.keyAttestationRequest(.v1_5, nonce: try await fixture.nonce(), keys: keys)
        #expect(try CompactJWS(parsing: request).payloadJSON()["integrity_assertion"] == nil)
        let answer = try await fixture.request(.post, "/key-attestation", json: ["assertion": .string(request)])
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        let (header, claims) = try await IssuedDocument.verify(try #require(answer.json?["key_attestation"]?.stringValue), fixture)
        #expect(header["typ"]?.stringValue == "key-attestation+jwt")
        #expect(claims["iss"] == nil && claims["status"] == nil)
        #expect(try #require(claims["attested_keys"]?.arrayValue).count == 3)
        #expect(claims["key_storage"] == [.string(platform == .ios ? "iso_18045_moderate" : "iso_18045_enhanced-basic")])
        #expect(claims["user_authentication"] == ["iso_18045_moderate"])
        let iat = try #require(claims["iat"]?.int64Value)
        #expect(claims["exp"]?.int64Value == iat + 31 * 86_400)
        #expect(claims["key_storage_status"]?["exp"]?.int64Value == iat + 31 * 86_400)
        #expect(claims["key_storage_status"]?["status"]?["status_list"]?["idx"]?.int64Value != nil)

        // iOS: the 1.3 form (split assertion at the top) is accepted in 1.5 too; then the keys carry none.
        guard platform == .ios else { return }
        var changes = AttestationDevice.Changes()
        changes.topLevelIntegrity = true
        let split = try device.keyAttestationRequest(.v1_5, nonce: try await fixture.nonce(), keys: keys, changes: changes)
        #expect(try await fixture.request(.post, "/key-attestation", body: Data(split.utf8), contentType: "text/plain").status == 200)
    }

    /// StrongBox keys are `iso_18045_moderate`, TEE keys `enhanced-basic`; 1.3 states each key's level, 1.5 refuses
    /// keys of two storages in one attestation.
    @Test func keyStorageFollowsTheAndroidSecurityLevel() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, .android)
        let keys = [P256.Signing.PrivateKey(), P256.Signing.PrivateKey()]
        for version in [ITWalletVersion.v1_3, .v1_5] {
            let nonce = try await fixture.nonce()
            let elements = try [
                device.element(key: keys[0], nonce: nonce, securityLevel: .strongBox),
                device.element(key: keys[1], nonce: nonce, securityLevel: .trustedEnvironment),
            ]
            let request = try device.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: elements)
            let answer = try await fixture.request(
                .post, ITWalletEndpoint.keyAttestation(version) ?? "", body: Data(request.utf8), contentType: "text/plain")
            if version == .v1_3 {
                let (_, claims) = try await IssuedDocument.verify(try #require(answer.json?["key_attestation"]?.stringValue), fixture)
                #expect(claims["key_storage"] == ["iso_18045_moderate", "iso_18045_enhanced-basic"])
            } else {
                #expect(answer.status == 403)
                #expect(answer.error == "invalid_request")
            }
        }
        let nonce = try await fixture.nonce()
        let strong = try keys.map { try device.element(key: $0, nonce: nonce, securityLevel: .strongBox) }
        let request = try device.keyAttestationRequest(.v1_5, nonce: nonce, keys: keys, elements: strong)
        let answer = try await fixture.request(.post, "/key-attestation", body: Data(request.utf8), contentType: "text/plain")
        let (_, claims) = try await IssuedDocument.verify(try #require(answer.json?["key_attestation"]?.stringValue), fixture)
        #expect(claims["key_storage"] == ["iso_18045_moderate"])
    }

    /// Every rule of `keys_to_attest`, each broken alone, with the row of the IT-Wallet table it gets.
    @Test(arguments: [ITWalletVersion.v1_3, .v1_5])
    func keysToAttestRules(version: ITWalletVersion) async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let android = try await AttestationDevice.registered(at: fixture, .android)
        let ios = try await AttestationDevice.registered(at: fixture, .ios)
        let path = ITWalletEndpoint.keyAttestation(version) ?? ""
        func post(_ device: AttestationDevice, _ build: (String, [P256.Signing.PrivateKey]) throws -> String) async throws -> (Int, String?) {
            let keys = [P256.Signing.PrivateKey(), P256.Signing.PrivateKey()]
            let request = try build(try await fixture.nonce(), keys)
            let answer = try await fixture.request(.post, path, body: Data(request.utf8), contentType: "text/plain")
            return (answer.status, answer.error)
        }
        func elements(_ device: AttestationDevice, _ nonce: String, _ keys: [P256.Signing.PrivateKey],
                      second: (P256.Signing.PrivateKey) throws -> String) throws -> [String] {
            [try device.element(key: keys[0], nonce: nonce), try second(keys[1])]
        }
        let bad = (400, "bad_request"), invalid = (422, "validation_error"), refused = (403, "invalid_request")
        let rows: [(String, AttestationDevice, (String, [P256.Signing.PrivateKey]) throws -> String, (Int, String))] = [
            ("keys_to_attest missing", android, { nonce, keys in
                var changes = AttestationDevice.Changes()
                changes.removeClaim = "keys_to_attest"
                return try android.keyAttestationRequest(version, nonce: nonce, keys: keys, changes: changes)
            }, bad),
            ("keys_to_attest empty", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: [])
            }, invalid),
            ("17 keys", android, { nonce, keys in
                let many = (0..<17).map { _ in P256.Signing.PrivateKey() }
                return try android.keyAttestationRequest(version, nonce: nonce, keys: many)
            }, invalid),
            ("the same key twice", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: [keys[0], keys[0]])
            }, invalid),
            ("an element that is not a JWS", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) { _ in "abc" })
            }, invalid),
            ("an element with another typ", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, typ: "JWT")
                })
            }, invalid),
            ("cnf is not the first key", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: [
                    try android.element(key: keys[1], nonce: nonce), try android.element(key: keys[0], nonce: nonce),
                ])
            }, invalid),
            ("an element signed by another key", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, signer: P256.Signing.PrivateKey())
                })
            }, refused),
            ("an element living two hours", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, lifetime: 7200)
                })
            }, refused),
            ("Android: an element without its key attestation", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, androidAttestation: false)
                })
            }, refused),
            ("Android: a key attested for another challenge", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, challenge: "another nonce")
                })
            }, refused),
            ("Android: the attestation is of another key", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, attestedKey: P256.Signing.PrivateKey().publicKey)
                })
            }, refused),
            ("Android: a software key", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(android, nonce, keys) {
                    try android.element(key: $0, nonce: nonce, securityLevel: .software)
                })
            }, refused),
            ("iOS: an element with an Android attestation", ios, { nonce, keys in
                try ios.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try elements(ios, nonce, keys) {
                    try ios.element(key: $0, nonce: nonce, androidAttestation: true)
                })
            }, refused),
            ("client_data names other keys", android, { nonce, keys in
                try android.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: [
                    try android.element(key: keys[0], nonce: nonce), try android.element(key: P256.Signing.PrivateKey(), nonce: nonce),
                ])
            }, refused),
        ]
        for (name, device, build, expected) in rows {
            let (status, error) = try await post(device, build)
            #expect(status == expected.0 && error == expected.1, "\(version.rawValue) \(name): \(status) \(error ?? "")")
        }
        guard version == .v1_5 else { return }
        // 1.5 iOS without a top-level integrity_assertion: every key needs its own App Attest assertion.
        let (status, error) = try await post(ios) { nonce, keys in
            try ios.keyAttestationRequest(version, nonce: nonce, keys: keys, elements: try keys.map { try ios.element(key: $0, nonce: nonce) })
        }
        #expect(status == 403 && error == "invalid_request")
        // A key's assertion over another client_data (another nonce), the first one's still right.
        let (status2, error2) = try await post(ios) { nonce, keys in
            let good = try ios.appAttestAssertion(over: AttestationDevice.clientData(.v1_5, nonce: nonce,
                thumbprintMember: .array(keys.map { .string(JWK(publicKey: $0.publicKey).thumbprintBase64URL()) }), member: "jwk_thumbprints"))
            let other = try ios.appAttestAssertion(over: Data("other".utf8))
            var changes = AttestationDevice.Changes()
            changes.hardwareSignature = try AppAttestAssertionObject(good).signature.base64EncodedString()
            return try ios.keyAttestationRequest(version, nonce: nonce, keys: keys, changes: changes, elements: [
                try ios.element(key: keys[0], nonce: nonce, assertion: good), try ios.element(key: keys[1], nonce: nonce, assertion: other),
            ])
        }
        #expect(status2 == 403 && error2 == "invalid_request")
    }
}
