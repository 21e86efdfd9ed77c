import Crypto
import Foundation
import ITWalletProtocol
import TesseraCore
import TesseraJOSE
import TesseraTrustTesting
import Testing
import WalletInstanceKit
import WalletInstanceKitTesting
import X509

/// The wallet side of issue 27 against a real provider on loopback: version choice from the Entity Configuration,
/// 1.0, 1.3 and 1.5 instances each activated and attested by one running provider, renewal at a pinned clock,
/// the wallet's own refusals, Key Attestation, and revocation seen through the 1.5 `client_status`.
@Suite(.serialized)
struct WalletInstanceVersionTests {
    static func attester(_ fixture: ProviderFixture, anchors: [Certificate]? = nil, name: String = UUID().uuidString) -> WalletInstanceAttester {
        WalletInstanceAttester(client: fixture.wallet(name), anchors: anchors ?? [fixture.signingRoot], solution: .init(platform: .android))
    }

    @Test func versionChoiceRules() throws {
        #expect(try SpecNegotiation.choose(advertised: [.v0_9, .v1_0, .v1_3, .v1_5]) == .v1_5)
        #expect(try SpecNegotiation.choose(advertised: [.v0_9, .v1_0]) == .v1_0)
        #expect(try SpecNegotiation.choose(advertised: [.v0_9, .v1_0, .v1_3, .v1_5], forced: .v1_0) == .v1_0)
        #expect(throws: AttestationCheckError.versionNotAdvertised(.v1_5, advertised: [.v0_9, .v1_0])) {
            try SpecNegotiation.choose(advertised: [.v0_9, .v1_0], forced: .v1_5)
        }
        #expect(throws: AttestationCheckError.noCommonVersion(advertised: [])) { try SpecNegotiation.choose(advertised: []) }
    }

    @Test func refreshPolicyRenewsAtTenPercentOrFiveMinutes() {
        let policy = RefreshPolicy()
        let iat = Date(timeIntervalSince1970: 1_800_000_000)
        // One hour: 10 % is 6 min (> 5 min): renewed from 54 min on.
        #expect(policy.renewalInstant(issuedAt: iat, expiresAt: iat.addingTimeInterval(3600)) == iat.addingTimeInterval(3240))
        // Ten minutes: 5 min floor.
        #expect(policy.renewalInstant(issuedAt: iat, expiresAt: iat.addingTimeInterval(600)) == iat.addingTimeInterval(300))
        #expect(!policy.isDue(issuedAt: iat, expiresAt: iat.addingTimeInterval(3600), at: iat.addingTimeInterval(3000)))
        #expect(policy.isDue(issuedAt: iat, expiresAt: iat.addingTimeInterval(3600), at: iat.addingTimeInterval(3300)))
        #expect(policy.isDue(issuedAt: nil, expiresAt: nil, at: iat))
    }

    @Test func oneProviderAttestsA10A13AndA15Instance() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let entity = try await Self.attester(fixture).discover(provider: fixture.server.baseURL)
        #expect(entity.versions == Set(ITWalletVersion.allCases))
        for version in [ITWalletVersion.v1_0, .v1_3, .v1_5] {
            let attester = Self.attester(fixture)
            let record = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: version)
            #expect(record.state == .operational)
            #expect(record.specVersion == version)
            let jws = try CompactJWS(parsing: try #require(record.walletAttestation))
            #expect(jws.type == ITWalletType.clientAttestation)
            #expect(jws.header["x5c"] != nil)
            let claims = try jws.payloadJSON()
            let key = try P256.Signing.PrivateKey(pemRepresentation: try #require(record.attestationKeyPEM))
            #expect(claims["cnf"]?["jwk"].flatMap { $0.objectValue }.flatMap { try? JWK(json: $0) }?.thumbprintBase64URL()
                == JWK(publicKey: key.publicKey).thumbprintBase64URL())
            switch version {
            case .v1_0: #expect(record.attestationFormats.map { Set($0.keys) } == ["jwt", "dc+sd-jwt", "mso_mdoc"])
            case .v1_3: #expect(claims["iss"]?.stringValue == fixture.server.baseURL && record.clientStatus == nil)
            default:
                #expect(claims["iss"] == nil)
                let status = try #require(record.clientStatus)
                #expect(status.uri.hasPrefix(fixture.server.baseURL + "/status-lists/"))
            }
        }
    }

    @Test func newestVersionByDefaultAndForcedVersionsHonoured() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let attester = Self.attester(fixture)
        let record = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session)
        #expect(record.specVersion == .v1_5)
        // A later --spec asks another advertised version; the record follows it.
        let forced = try await attester.attest(spec: .v1_3)
        #expect(forced.specVersion == .v1_3)
        #expect(try CompactJWS(parsing: try #require(forced.walletAttestation)).payloadJSON()["iss"]?.stringValue == fixture.server.baseURL)
    }

    @Test func renewedBeforeExpiryAtAPinnedClock() async throws {
        let fixture = try await ProviderFixture(at: Date(timeIntervalSince1970: 1_800_000_000))
        defer { Task { await fixture.shutdown() } }
        let attester = Self.attester(fixture)
        let first = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: .v1_3)
        let issued = try #require(first.attestationIssuedAt), expires = try #require(first.attestationExpiresAt)
        fixture.clock.set(issued.addingTimeInterval(1800))
        #expect(try await attester.refreshIfNeeded() == .current)
        #expect(try attester.client.store.load().walletAttestation == first.walletAttestation)
        // Inside the margin (10 % of the hour = 6 min before exp): renewed, and the new one lives past the old.
        fixture.clock.set(expires.addingTimeInterval(-300))
        #expect(try await attester.refreshIfNeeded() == .renewed)
        let renewed = try attester.client.store.load()
        #expect(renewed.walletAttestation != first.walletAttestation)
        #expect(try #require(renewed.attestationExpiresAt) > expires)
        #expect(renewed.state == .operational)
    }

    @Test func theWalletRefusesTamperedExpiredAndForeignAttestations() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let attester = Self.attester(fixture)
        let record = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: .v1_5)
        let entity = try await attester.discover(provider: fixture.server.baseURL)
        let jwt = try #require(record.walletAttestation)
        let key = try P256.Signing.PrivateKey(pemRepresentation: try #require(record.attestationKeyPEM))
        let thumbprint = JWK(publicKey: key.publicKey).thumbprintBase64URL()
        let verifier = attester.verifier
        let now = fixture.clock.now()
        let type = ITWalletType.clientAttestation
        _ = try await verifier.verify(jwt, type: type, boundTo: thumbprint, provider: entity, at: now)
        // Payload changed after signing.
        let parts = jwt.split(separator: ".").map(String.init)
        var claims = try CompactJWS(parsing: jwt).payloadJSON()
        claims["wallet_name"] = "Another Wallet"
        let tampered = [parts[0], Base64URL.encode(claims.serialized()), parts[2]].joined(separator: ".")
        await #expect(throws: AttestationCheckError.self) { try await verifier.verify(tampered, type: type, boundTo: thumbprint, provider: entity, at: now) }
        // Another key's attestation, expired, wrong typ.
        let other = JWK(publicKey: P256.Signing.PrivateKey().publicKey).thumbprintBase64URL()
        await #expect(throws: AttestationCheckError.notBoundToOurKey(type)) {
            try await verifier.verify(jwt, type: type, boundTo: other, provider: entity, at: now)
        }
        let exp = try #require(record.attestationExpiresAt)
        await #expect(throws: AttestationCheckError.expired) {
            try await verifier.verify(jwt, type: type, boundTo: thumbprint, provider: entity, at: exp.addingTimeInterval(1))
        }
        await #expect(throws: AttestationCheckError.wrongType(expected: "wallet-attestation+jwt", found: type)) {
            try await verifier.verify(jwt, type: "wallet-attestation+jwt", boundTo: thumbprint, provider: entity, at: now)
        }
        // A wallet configured with another anchor refuses the provider's attestation at activation.
        var random = SystemRandomNumberGenerator()
        let foreign = try X5CTestPKI.issueChain(rootCommonName: "Other Root", leafCommonName: "Other", now: now, random: &random).root.certificate
        let stranger = Self.attester(fixture, anchors: [foreign])
        await #expect(throws: WalletInstanceError.self) {
            try await stranger.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: .v1_5)
        }
        do {
            _ = try await stranger.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: .v1_3)
            Issue.record("a foreign anchor's wallet accepted the attestation")
        } catch let error as WalletInstanceError {
            guard case .attestation(.untrustedSignature) = error else { Issue.record("expected an untrusted signature, got \(error)"); return }
        }
    }

    @Test(arguments: [ITWalletVersion.v1_3, .v1_5])
    func keyAttestationForWalletKeys(version: ITWalletVersion) async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let name = UUID().uuidString
        let attester = Self.attester(fixture, name: name)
        _ = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: version)
        let keys = try #require(attester.client.integrity as? TestDeviceIntegrityService)
        let kept = try await attester.keyAttest(keys: keys, count: 2)
        #expect(kept.keyIDs.count == 2)
        let claims = try CompactJWS(parsing: kept.jwt).payloadJSON()
        #expect(claims["attested_keys"]?.arrayValue?.count == 2)
        #expect(try attester.client.store.load().keyAttestations?.count == 1)
    }

    @Test func revocationSeenThroughClientStatus() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let attester = Self.attester(fixture)
        let account = try await fixture.account()
        let record = try await attester.activate(provider: fixture.server.baseURL, session: account.session, spec: .v1_5)
        let reference = try #require(record.clientStatus)
        #expect(try await attester.readClientStatus(reference).status == 0)
        #expect(try await attester.refreshIfNeeded() == .current)
        // Revoked at the provider (the account's own request, not through this wallet): the bit flips.
        let id = try #require(record.instanceID)
        let revoked = try await fixture.request(.post, "/api/wallet-instances/\(id)/revoke", session: account.session)
        #expect(revoked.status == 204)
        #expect(try await attester.readClientStatus(reference).status == 1)
        #expect(try await attester.refreshIfNeeded() == .revoked)
        let after = try attester.client.store.load()
        #expect(after.state == .installed)
        #expect(after.history.map(\.event) == ["WI ACT", "WI REV"])
        #expect(after.walletAttestation == nil && after.hardwareKeyID == nil)
    }
}
