import Crypto
import Foundation
import ITWalletProtocol
import ServiceSupport
import TesseraCore
import TesseraJOSE
import TesseraTestSupport
import Testing
import TokenStatusList
import WalletInstanceKit
@testable import WalletProvider

/// `GET /status-lists/{id}` over HTTP: the lists a 1.5 Wallet Instance Attestation (`client_status`) and a Key
/// Attestation (`key_storage_status`) point at, read before and after the instance is revoked through the
/// management API, by TokenStatusList (x5c to the signing root, `sub` = the URL) and by an independent Python
/// reader (zlib and its own bit reader), in JWT and CWT form; Accept negotiation, the caching bound, the errors.
@Suite(.serialized)
struct StatusListServingTests {
    /// Where an attestation points: its list URL and index.
    struct Reference: Equatable {
        let uri: String
        let index: Int
    }

    @Test(arguments: ProviderDatabases.all)
    func revocationFlipsTheBitsOfTheInstancesAttestations(database: String) async throws {
        let fixture = try await ProviderFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let session = try await fixture.account().session
        let device = try await AttestationDevice.registered(at: fixture, .android, session: session)
        let other = try await AttestationDevice.registered(at: fixture, .ios, session: session)
        let wia = try await Self.walletInstanceAttestation(device, fixture)
        let ka = try await Self.keyAttestation(device, fixture)
        let bystander = try await Self.walletInstanceAttestation(other, fixture)
        // One list for all (herd privacy, TSL §12.2), three different indices.
        #expect(wia.uri == ka.uri && ka.uri == bystander.uri)
        #expect(Set([wia.index, ka.index, bystander.index]).count == 3)
        #expect(wia.uri.hasPrefix(fixture.server.baseURL + "/status-lists/"))
        let path = String(wia.uri.dropFirst(fixture.server.baseURL.count))

        let before = try await Self.fetchJWT(path, fixture)
        #expect(try before.token.statusList.status(at: wia.index) == StatusList.valid)
        #expect(try before.token.statusList.status(at: ka.index) == StatusList.valid)
        // Nothing changed: the same token again (kept, not signed anew per request). On the PostgreSQL database
        // the other suites share, another suite may revoke an entry of the same list in between.
        if database == "sqlite" { #expect(try await Self.fetchJWT(path, fixture).compact == before.compact) }

        let revoked = try await fixture.request(
            .patch, "/wallet-instances/\(InstanceID.of(device.hardwareKeyTag))", json: ["status": "REVOKED"], session: session)
        #expect(revoked.status == 204)
        // At the same instant: the provider serves the new bits at once (the revocation bumped the list's version),
        // in both forms, read alike by TokenStatusList and by the independent Python reader.
        let after = try await Self.fetchJWT(path, fixture)
        try Self.check(after.token.statusList, python: try Self.pythonRead("jwt", Data(after.compact.utf8)),
            invalid: [wia, ka], valid: [bystander], uri: wia.uri)
        let cwtAnswer = try await fixture.request(.get, path, headers: [("Accept", StatusListMediaType.cwt)])
        #expect(cwtAnswer.status == 200 && cwtAnswer.header("Content-Type") == StatusListMediaType.cwt)
        let cwt = try StatusListCWT(bytes: cwtAnswer.body)
        _ = try await cwt.verifySignature(trustAnchors: [fixture.signingRoot], at: fixture.clock.now())
        try cwt.validate(fetchedFrom: wia.uri, at: fixture.clock.now())
        #expect(cwt.timeToLive == 300 && cwt.issuedAt >= after.token.issuedAt)
        let pythonCWT = try Self.pythonRead("cwt", cwtAnswer.body)
        #expect(pythonCWT?["typ"] == .string(StatusListMediaType.cwt))
        try Self.check(cwt.statusList, python: pythonCWT, invalid: [wia, ka], valid: [bystander], uri: wia.uri)
    }

    /// The bits of `invalid` are INVALID and those of `valid` VALID in `list`, and the Python reader's output for
    /// the same token (signature by the x5c leaf, `sub`, 1 bit) finds exactly the list's non-VALID entries.
    static func check(_ list: StatusList, python: JSONValue?, invalid: [Reference], valid: [Reference], uri: String) throws {
        for reference in invalid { #expect(try list.status(at: reference.index) == StatusList.invalid, "\(reference)") }
        for reference in valid { #expect(try list.status(at: reference.index) == StatusList.valid, "\(reference)") }
        let python = try #require(python)
        #expect(python["signature"] == "valid" && python["sub"] == .string(uri) && python["bits"] == 1)
        let found = try #require(python["non_valid"]?.arrayValue).compactMap { $0.arrayValue?.compactMap(\.int64Value) }
        #expect(found == list.nonValidStatuses.map { [Int64($0.index), Int64($0.status)] })
    }

    @Test func theTokensClaimsHeaderAndCaching() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, .ios)
        let reference = try await Self.walletInstanceAttestation(device, fixture)
        let path = String(reference.uri.dropFirst(fixture.server.baseURL.count))
        let first = try await Self.fetchJWT(path, fixture)
        let now = Int64(fixture.clock.now().timeIntervalSince1970)
        #expect(first.answer.header("Cache-Control") == "max-age=300")
        #expect(first.answer.header("Vary") == "Accept")
        #expect(first.answer.header("Access-Control-Allow-Origin") == "*")
        let jws = first.token.jwt
        #expect(jws.type == "statuslist+jwt" && jws.keyID == fixture.signingKeyID && jws.algorithm.rawValue == "ES256")
        #expect(jws.header["x5c"]?.arrayValue?.isEmpty == false)
        let claims = try jws.payloadJSON()
        #expect(claims["sub"] == .string(reference.uri))
        #expect(claims["iat"] == .integer(now) && claims["exp"] == .integer(now + 86_400) && claims["ttl"] == 300)
        #expect(first.token.statusList.count == 10_000)
        // Within ttl the stored token is served; once it is ttl old, a new one (new iat, same bits).
        fixture.clock.set(fixture.clock.now().addingTimeInterval(299))
        #expect(try await Self.fetchJWT(path, fixture).compact == first.compact)
        fixture.clock.set(fixture.clock.now().addingTimeInterval(1))
        let renewed = try await Self.fetchJWT(path, fixture)
        #expect(try renewed.token.jwt.payloadJSON()["iat"] == .integer(now + 300))
        #expect(renewed.token.statusList == first.token.statusList)
    }

    @Test func acceptNegotiationAndErrors() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let device = try await AttestationDevice.registered(at: fixture, .android)
        let reference = try await Self.walletInstanceAttestation(device, fixture)
        let path = String(reference.uri.dropFirst(fixture.server.baseURL.count))
        let jwt = StatusListMediaType.jwt, cwt = StatusListMediaType.cwt
        let served: [(String?, String)] = [
            (nil, jwt), ("*/*", jwt), (jwt, jwt), (cwt, cwt), ("application/*", jwt),
            ("\(cwt);q=0.5, \(jwt);q=0.9", jwt), ("\(jwt);q=0.2, \(cwt)", cwt),
            ("application/*;q=0.1, \(jwt);q=0", cwt), ("text/html, */*;q=0.1", jwt), ("\(cwt.uppercased())", cwt),
        ]
        for (accept, expected) in served {
            let answer = try await fixture.request(.get, path, headers: accept.map { [("Accept", $0)] } ?? [])
            #expect(answer.status == 200 && answer.header("Content-Type") == expected, "Accept \(accept ?? "absent")")
        }
        for accept in ["application/json", "text/html", "\(jwt);q=0, \(cwt);q=0", "application/jwt"] {
            let answer = try await fixture.request(.get, path, headers: [("Accept", accept)])
            #expect(answer.status == 406 && answer.error == "not_acceptable", "Accept \(accept)")
            #expect(answer.json?["error_description"]?.stringValue?.contains(cwt) == true)
        }
        for unknown in ["/status-lists/AAAAAAAAAAAAAAAA", "/status-lists/not%20an%20id", "/status-lists/" + String(repeating: "A", count: 65)] {
            let answer = try await fixture.request(.get, unknown)
            #expect(answer.status == 404 && answer.error == "not_found" && answer.json?["error_description"] != nil, "\(unknown)")
        }
        let historical = try await fixture.request(.get, path + "?time=1700000000")
        #expect(historical.status == 501 && historical.error == "not_implemented")
        // The route and the attestation endpoints that point at it are in the OpenAPI document (schemathesis reads it).
        let paths = try #require(try await fixture.request(.get, "/openapi.json").json?["paths"]?.objectValue)
        for described in ["/status-lists/{id}", "/wallet-instance-attestations", "/wallet-instance-attestation", "/key-attestations",
                          "/wallet-unit-attestations", "/key-attestation"] {
            #expect(paths[described] != nil, "\(described)")
        }
    }

    @Test func negotiationRules() throws {
        #expect(try StatusListFormat.negotiate(accept: nil) == .jwt)
        #expect(try StatusListFormat.negotiate(accept: " , ") == .jwt)
        #expect(try StatusListFormat.negotiate(accept: "application/statuslist+cwt; charset=x; q=1") == .cwt)
        // A range with a q that is not a number in 0…1 counts as absent.
        #expect(try StatusListFormat.negotiate(accept: "application/statuslist+jwt;q=2, application/statuslist+cwt;q=0.1") == .cwt)
        #expect(throws: WireError.self) { try StatusListFormat.negotiate(accept: "application/statuslist+jwt;q=abc") }
        #expect(throws: WireError.self) { try StatusListFormat.negotiate(accept: "statuslist") }
    }

    // MARK: helpers

    /// A 1.5 Wallet Instance Attestation for `device`; its `client_status` reference.
    static func walletInstanceAttestation(_ device: AttestationDevice, _ fixture: ProviderFixture) async throws -> Reference {
        let request = try device.walletInstanceRequest(.v1_5, nonce: try await fixture.nonce())
        let answer = try await fixture.request(.post, ITWalletEndpoint.attestation(.v1_5), json: ["assertion": .string(request)])
        let (_, claims) = try await IssuedDocument.verify(try #require(answer.json?["wallet_instance_attestation"]?.stringValue), fixture)
        return try reference(claims["client_status"]?["status"])
    }

    /// A 1.5 Key Attestation for two new keys of `device`; its `key_storage_status` reference.
    static func keyAttestation(_ device: AttestationDevice, _ fixture: ProviderFixture) async throws -> Reference {
        let keys = [P256.Signing.PrivateKey(), P256.Signing.PrivateKey()]
        let request = try device.keyAttestationRequest(.v1_5, nonce: try await fixture.nonce(), keys: keys)
        let answer = try await fixture.request(.post, ITWalletEndpoint.keyAttestation(.v1_5) ?? "", json: ["assertion": .string(request)])
        let (_, claims) = try await IssuedDocument.verify(try #require(answer.json?["key_attestation"]?.stringValue), fixture)
        return try reference(claims["key_storage_status"]?["status"])
    }

    static func reference(_ status: JSONValue?) throws -> Reference {
        let parsed = try StatusListReference(claim: try #require(status))
        return Reference(uri: parsed.uri, index: parsed.index)
    }

    /// The list at `path` in its default form, verified as a relying party does (TSL §8.3): x5c to the signing
    /// root, `sub` = the URL fetched, not expired.
    static func fetchJWT(
        _ path: String, _ fixture: ProviderFixture
    ) async throws -> (answer: ProviderFixture.Answer, token: StatusListToken, compact: String) {
        let answer = try await fixture.request(.get, path)
        #expect(answer.status == 200 && answer.header("Content-Type") == StatusListMediaType.jwt)
        let compact = String(decoding: answer.body, as: UTF8.self)
        let token = try StatusListToken(parsing: compact)
        _ = try await token.verifySignature(trustAnchors: [fixture.signingRoot], at: fixture.clock.now())
        try token.validate(fetchedFrom: fixture.server.baseURL + path, at: fixture.clock.now())
        return (answer, token, compact)
    }

    /// scripts/peers/status_list_reader.py on `token`: its JSON output.
    static func pythonRead(_ kind: String, _ token: Data) throws -> JSONValue? {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("provider-tsl-\(UUID().uuidString).\(kind)")
        try token.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        guard let output = try PythonPeer.run([PythonPeer.script("status_list_reader.py").path, kind, file.path]) else { return nil }
        guard output.status == 0 else {
            Issue.record("status_list_reader.py exited \(output.status): \(output.stderr)")
            return nil
        }
        return try JSONValue.parse(output.stdout)
    }
}
