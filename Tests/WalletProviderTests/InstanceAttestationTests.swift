import Crypto
import Foundation
import ITWalletProtocol
import TesseraJOSE
import Testing

/// 1.3 and 1.5 Wallet Instance Attestations end to end over HTTP, on iOS (App Attest test authority) and Android
/// (test key attestation authority and integrity tokens), on SQLite and PostgreSQL: each document verified the way
/// a relying party does (x5c to the provider's signing root), with each version's claims.
@Suite(.serialized)
struct InstanceAttestationTests {
    static let cases: [(String, AttestationDevice.Platform)] = ProviderDatabases.all.flatMap { db in
        AttestationDevice.Platform.allCases.map { (db, $0) }
    }

    @Test(arguments: cases)
    func walletInstanceAttestation13(database: String, platform: AttestationDevice.Platform) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, platform)
        let key = P256.Signing.PrivateKey()
        // The production client posts the JWT itself as text/plain.
        let request = try device.walletInstanceRequest(.v1_3, nonce: try await fixture.nonce(), key: key)
        let answer = try await fixture.request(.post, "/wallet-instance-attestations", body: Data(request.utf8), contentType: "text/plain")
        #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        #expect(answer.header("Cache-Control") == "no-store")
        let (header, claims) = try await IssuedDocument.verify(try #require(answer.json?["wallet_instance_attestation"]?.stringValue), fixture)
        #expect(header["typ"]?.stringValue == "oauth-client-attestation+jwt")
        let thumbprint = JWK(publicKey: key.publicKey).thumbprintBase64URL()
        #expect(claims["iss"]?.stringValue == fixture.server.baseURL)
        #expect(claims["sub"]?.stringValue == thumbprint)
        #expect(claims["cnf"]?["jwk"]?["kid"]?.stringValue == thumbprint)
        #expect(claims["cnf"]?["jwk"]?["alg"]?.stringValue == "ES256")
        #expect(claims["wallet_name"]?.stringValue == "Tessera Wallet")
        #expect(claims["wallet_link"] != nil)
        #expect(claims["client_status"] == nil && claims["status"] == nil)
        let iat = try #require(claims["iat"]?.int64Value), exp = try #require(claims["exp"]?.int64Value)
        #expect(iat == Int64(fixture.clock.now().timeIntervalSince1970) && exp - iat == 3600)
    }

    @Test(arguments: cases)
    func walletInstanceAttestation15(database: String, platform: AttestationDevice.Platform) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, platform)
        var statuses: [JSONValue] = []
        // JSON {assertion} (the text's example), then the raw JWT as application/jwt: both encodings, one entry.
        for contentType in ["application/json", "application/jwt"] {
            let key = P256.Signing.PrivateKey()
            let request = try device.walletInstanceRequest(.v1_5, nonce: try await fixture.nonce(), key: key)
            let body = contentType == "application/json" ? (["assertion": .string(request)] as JSONObject).serialized() : Data(request.utf8)
            let answer = try await fixture.request(.post, "/wallet-instance-attestation", body: body, contentType: contentType)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let (header, claims) = try await IssuedDocument.verify(try #require(answer.json?["wallet_instance_attestation"]?.stringValue), fixture)
            #expect(header["typ"]?.stringValue == "oauth-client-attestation+jwt")
            #expect(claims["iss"] == nil)
            #expect(claims["sub"]?.stringValue == "https://tessera.invalid/wallet")
            #expect(claims["wallet_version"]?.stringValue == "1.0.0")
            #expect(claims["cnf"]?["jwk"]?["kid"]?.stringValue == JWK(publicKey: key.publicKey).thumbprintBase64URL())
            let status = try #require(claims["client_status"]?["status"])
            let uri = try #require(status["status_list"]?["uri"]?.stringValue)
            #expect(uri.hasPrefix(fixture.server.baseURL + "/status-lists/"))
            let idx = try #require(status["status_list"]?["idx"]?.int64Value)
            #expect((0..<10_000).contains(idx))
            // Maintained for the Key Attestation lifetime (31 days), beyond the WIA's own hour.
            let maintained = try #require(claims["client_status"]?["exp"]?.int64Value)
            #expect(maintained == Int64(fixture.clock.now().timeIntervalSince1970) + 31 * 86_400)
            statuses.append(status)
            fixture.clock.set(fixture.clock.now().addingTimeInterval(60))
        }
        // One index per instance, reused by each of its WIAs.
        #expect(statuses[0] == statuses[1])
    }
}

/// An attestation as a relying party checks it: `x5c` chaining to the provider's signing root at the fixture's
/// instant, the signature by its leaf, and `trust_chain` starting with the provider's Entity Configuration.
enum IssuedDocument {
    static func verify(_ jwt: String, _ fixture: ProviderFixture) async throws -> (header: JSONObject, claims: JSONObject) {
        let jws = try CompactJWS(parsing: jwt)
        _ = try await jws.verifyX5C(anchors: [fixture.signingRoot], at: fixture.clock.now())
        #expect(jws.algorithm.rawValue == "ES256")
        #expect(jws.keyID != nil)
        let chain = try #require(jws.header["trust_chain"]?.arrayValue)
        let entity = try CompactJWS(parsing: try #require(chain.first?.stringValue))
        #expect(try entity.payloadJSON()["sub"]?.stringValue == fixture.server.baseURL)
        return (jws.header, try jws.payloadJSON())
    }
}
