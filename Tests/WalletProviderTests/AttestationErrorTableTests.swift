import Crypto
import Foundation
import ITWalletProtocol
import TesseraCore
import TesseraJOSE
import Testing
import WalletInstanceKit

/// The 1.3 / 1.5 error table ("Wallet Instance Attestation / Key Attestation Error Response", the 1.0 table:
/// 400 bad_request, 422 validation_error, 403 invalid_request, 403 integrity_check_error, 404 not_found) row by row, tampering with each signed part,
/// expiry at a pinned instant, and one nonce raced by many requests.
@Suite(.serialized)
struct AttestationErrorTableTests {
    /// 2026-07-01T00:00:00Z: every time in these tests is relative to it.
    static let pinned = Date(timeIntervalSince1970: 1_782_864_000)

    @Test(arguments: [ITWalletVersion.v1_3, .v1_5], AttestationDevice.Platform.allCases)
    func everyRowOfTheTable(version: ITWalletVersion, platform: AttestationDevice.Platform) async throws {
        let fixture = try await ProviderFixture(at: Self.pinned)
        defer { Task { await fixture.shutdown() } }
        let account = try await fixture.account()
        let device = try await AttestationDevice.registered(at: fixture, platform, session: account.session)
        let path = ITWalletEndpoint.attestation(version)
        func post(_ changes: AttestationDevice.Changes = .init(), nonce: String? = nil) async throws -> (Int, String?) {
            var nonce = nonce
            if nonce == nil { nonce = try await fixture.nonce() }
            let request = try device.walletInstanceRequest(version, nonce: nonce ?? "", changes: changes)
            let answer = try await fixture.request(.post, path, body: Data(request.utf8), contentType: "text/plain")
            return (answer.status, answer.error)
        }
        func change(_ edit: (inout AttestationDevice.Changes) -> Void) -> AttestationDevice.Changes {
            var changes = AttestationDevice.Changes()
            edit(&changes)
            return changes
        }
        let bad = (400, "bad_request"), invalid = (422, "validation_error"), refused = (403, "invalid_request")
        var rows: [(String, AttestationDevice.Changes, (Int, String))] = [
            ("typ wp-war+jwt", change { $0.typ = "wp-war+jwt" }, (400, "invalid_request")),
            ("typ attestations-request+jwt (1.3 combined)", change { $0.typ = "attestations-request+jwt" }, (400, "invalid_request")),
            ("typ wua-request+jwt at the WIA endpoint", change { $0.typ = "wua-request+jwt" }, (400, "invalid_request")),
            ("platform missing", change { $0.removeClaim = "platform" }, bad),
            ("wallet_solution_id missing", change { $0.removeClaim = "wallet_solution_id" }, bad),
            ("nonce missing", change { $0.removeClaim = "nonce" }, bad),
            ("challenge instead of nonce", change { $0.claims = ["challenge": "x"] }, bad),
            ("kid is not the thumbprint", change { $0.kid = "another" }, invalid),
            ("hardware_signature not base64", change { $0.hardwareSignature = "***" }, invalid),
            ("signed by another key than cnf", change { $0.signWithOtherKey = true }, refused),
            ("lifetime two hours", change { $0.lifetime = 7200 }, refused),
            ("issued in the future", change { $0.iat = Self.pinned.addingTimeInterval(600) }, refused),
            ("aud names another provider", change { $0.aud = "https://other.example" }, refused),
            ("iss names another key", change { $0.iss = "some-other-instance" }, refused),
            ("platform is not the registered one", change { $0.claims = ["platform": .string(platform == .ios ? "android" : "ios")] }, refused),
            ("wallet_solution_id not served", change { $0.claims = ["wallet_solution_id": "appio"] }, refused),
            ("proofs over another nonce", change { $0.clientDataNonce = "another" }, refused),
            ("hardware proof by another key", change { $0.proofsByOtherKey = true }, refused),
        ]
        if platform == .ios {
            rows.append(("App Attest counter not increasing", change { $0.counter = 0 }, refused))
        } else {
            rows.append(("integrity token for other data", change { $0.integrityHashOfOtherData = true }, refused))
            rows.append(("device fails the integrity verdict", change { $0.integrityDeviceFails = true }, (403, "integrity_check_error")))
        }
        for (name, changes, expected) in rows {
            let (status, error) = try await post(changes)
            #expect(status == expected.0 && error == expected.1, "\(version.rawValue) \(platform) \(name): \(status) \(error ?? "")")
        }
        // The aud and iss forms that are accepted.
        for accepted in [change { $0.aud = fixture.server.baseURL + "/" }, change { $0.iss = fixture.server.baseURL + "/instance/" }] {
            var changes = accepted
            if changes.iss != nil {
                let key = P256.Signing.PrivateKey()
                changes.iss = (changes.iss ?? "") + JWK(publicKey: key.publicKey).thumbprintBase64URL()
                let request = try device.walletInstanceRequest(version, nonce: try await fixture.nonce(), key: key, changes: changes)
                #expect(try await fixture.request(.post, path, body: Data(request.utf8), contentType: "text/plain").status == 200)
            } else {
                #expect(try await post(changes).0 == 200)
            }
        }
        // The nonce: never issued, then used twice.
        #expect(try await post(nonce: "never-issued") == (403, "invalid_request"))
        let nonce = try await fixture.nonce()
        #expect(try await post(nonce: nonce).0 == 200)
        #expect(try await post(nonce: nonce) == (403, "invalid_request"))
        // An unknown hardware key tag: 404 not_found.
        #expect(try await post(change { $0.hardwareKeyTag = UUID().uuidString }) == (404, "not_found"))
        // Bodies: another content type, JSON with another member, an empty body.
        let request = try device.walletInstanceRequest(version, nonce: try await fixture.nonce())
        for (body, type) in [(Data(request.utf8), "application/octet-stream"), (Data(#"{"jwt":"x"}"#.utf8), "application/json"), (Data(), "text/plain")] {
            let answer = try await fixture.request(.post, path, body: body, contentType: type)
            #expect(answer.status == 400 && answer.error == "bad_request", "\(type)")
        }
        #expect(try await fixture.request(.post, path, body: Data("abc".utf8), contentType: "text/plain").error == "validation_error")
        // A revoked instance: 403 invalid_request.
        let id = InstanceID.of(device.hardwareKeyTag)
        #expect(try await fixture.request(.post, "/api/wallet-instances/\(id)/revoke", session: account.session).status == 204)
        #expect(try await post() == (403, "invalid_request"))
    }

    /// Each signed part changed after signing: the header, the payload, the signature; and each `keys_to_attest`
    /// element changed with the outer request signed again (what an attacker holding only the first key can do).
    @Test(arguments: [ITWalletVersion.v1_3, .v1_5])
    func tamperingWithEachSignedPart(version: ITWalletVersion) async throws {
        let fixture = try await ProviderFixture(at: Self.pinned)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, .android)
        let wiaPath = ITWalletEndpoint.attestation(version)
        let kaPath = ITWalletEndpoint.keyAttestation(version) ?? ""
        func post(_ path: String, _ request: String) async throws -> (Int, String?) {
            let answer = try await fixture.request(.post, path, body: Data(request.utf8), contentType: "text/plain")
            return (answer.status, answer.error)
        }
        let refused: (Int, String?) = (403, "invalid_request")
        for path in [wiaPath, kaPath] {
            let keys = [P256.Signing.PrivateKey(), P256.Signing.PrivateKey(), P256.Signing.PrivateKey()]
            func fresh() async throws -> String {
                path == wiaPath
                    ? try device.walletInstanceRequest(version, nonce: try await fixture.nonce())
                    : try device.keyAttestationRequest(version, nonce: try await fixture.nonce(), keys: keys)
            }
            let parts = try await fresh().split(separator: ".").map(String.init)
            var header = try #require(try JSONValue.parse(Base64URL.decode(parts[0])).objectValue)
            header["x-added"] = "1"
            #expect(try await post(path, [Base64URL.encode(header.serialized()), parts[1], parts[2]].joined(separator: ".")) == refused)
            let payloadParts = try await fresh().split(separator: ".").map(String.init)
            var claims = try #require(try JSONValue.parse(Base64URL.decode(payloadParts[1])).objectValue)
            claims["wallet_solution_version"] = "9.9.9"
            #expect(try await post(path, [payloadParts[0], Base64URL.encode(claims.serialized()), payloadParts[2]].joined(separator: ".")) == refused)
            var signatureParts = try await fresh().split(separator: ".").map(String.init)
            var signature = try Base64URL.decode(signatureParts[2])
            signature[5] ^= 0x01
            signatureParts[2] = Base64URL.encode(signature)
            #expect(try await post(path, signatureParts.joined(separator: ".")) == refused)
            guard path == kaPath else { continue }
            for position in 0..<keys.count {
                let request = try device.keyAttestationRequest(version, nonce: try await fixture.nonce(), keys: keys)
                let outer = try CompactJWS(parsing: request)
                var elements = try #require(try outer.payloadJSON()["keys_to_attest"]?.arrayValue)
                let element = try #require(elements[position].stringValue).split(separator: ".").map(String.init)
                var elementClaims = try #require(try JSONValue.parse(Base64URL.decode(element[1])).objectValue)
                elementClaims["exp"] = .integer((elementClaims["exp"]?.int64Value ?? 0) - 1)
                elements[position] = .string([element[0], Base64URL.encode(elementClaims.serialized()), element[2]].joined(separator: "."))
                let tampered = try Self.replacing(request, "keys_to_attest", with: .array(elements), key: keys[0])
                #expect(try await post(kaPath, tampered) == refused, "element \(position)")
            }
        }
    }

    /// At a pinned instant: a request is good until its `exp`, refused from then on; the attestation states the
    /// pinned `iat` and its lifetime.
    @Test(arguments: [ITWalletVersion.v1_3, .v1_5])
    func expiryAtAPinnedInstant(version: ITWalletVersion) async throws {
        let fixture = try await ProviderFixture(at: Self.pinned)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, .ios)
        var changes = AttestationDevice.Changes()
        changes.lifetime = 300
        let expiring = try device.walletInstanceRequest(version, nonce: try await fixture.nonce(), changes: changes)
        let good = try device.walletInstanceRequest(version, nonce: try await fixture.nonce(), changes: changes)
        let path = ITWalletEndpoint.attestation(version)
        fixture.clock.set(Self.pinned.addingTimeInterval(299))
        let answer = try await fixture.request(.post, path, body: Data(good.utf8), contentType: "text/plain")
        let (_, claims) = try await IssuedDocument.verify(try #require(answer.json?["wallet_instance_attestation"]?.stringValue), fixture)
        #expect(claims["iat"]?.int64Value == Int64(Self.pinned.timeIntervalSince1970) + 299)
        #expect(claims["exp"]?.int64Value == Int64(Self.pinned.timeIntervalSince1970) + 299 + 3600)
        fixture.clock.set(Self.pinned.addingTimeInterval(300))
        let late = try await fixture.request(.post, path, body: Data(expiring.utf8), contentType: "text/plain")
        #expect(late.status == 403 && late.error == "invalid_request")
    }

    /// One nonce, many concurrent requests (each with valid proofs): exactly one attestation.
    @Test(arguments: ProviderDatabases.all)
    func oneNonceManyRequestsOneWins(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, .android)
        for (version, path) in [(ITWalletVersion.v1_5, "/wallet-instance-attestation"), (.v1_3, "/key-attestations")] {
            let nonce = try await fixture.nonce()
            let requests = try (0..<24).map { _ in
                path.hasPrefix("/key")
                    ? try device.keyAttestationRequest(version, nonce: nonce, keys: [P256.Signing.PrivateKey()])
                    : try device.walletInstanceRequest(version, nonce: nonce)
            }
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for request in requests {
                    group.addTask {
                        let answer = try await fixture.request(.post, path, body: Data(request.utf8), contentType: "text/plain")
                        return (answer.status, answer.error)
                    }
                }
                return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1, "\(path): \(statuses)")
            #expect(statuses.filter { $0.0 != 200 }.allSatisfy { $0 == (403, "invalid_request") }, "\(path): \(statuses)")
        }
    }

    /// `request` with one claim replaced, signed again with `key` (the request's `cnf` key).
    static func replacing(_ request: String, _ claim: String, with value: JSONValue, key: P256.Signing.PrivateKey) throws -> String {
        let jws = try CompactJWS(parsing: request)
        var claims = try jws.payloadJSON()
        claims[claim] = value
        var header = jws.header
        header["alg"] = nil
        return try CompactJWS.sign(header: header, claims: claims, key: .es256(key)).compact
    }
}
