import Crypto
import Foundation
import HolderKit
import ITWalletProtocol
import SDJWT
import TesseraHTTP
import TesseraJOSE
import Testing
import WalletInstanceKit
import WalletInstanceKitTesting

/// The wallet's own refusals, end to end: a real provider answers, and an HTTP client between them changes one
/// part of the answer on its way to the wallet (the way a compromised network or provider front would). Each
/// activation must fail with the rule that was broken and leave the instance Installed.
@Suite(.serialized)
struct WalletInstanceRefusalTests {
    /// Forwards to the fixture's transport; rewrites the body of answers from `path` with `rewrite`.
    struct RewritingHTTP: HTTPClient {
        let inner: any HTTPClient
        let path: String
        let rewrite: @Sendable (Data) -> Data

        func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
            var response = try await inner.send(request)
            if request.url.path == path, response.status == 200 { response.body = rewrite(response.body) }
            return response
        }
    }

    static func attester(_ fixture: ProviderFixture, path: String, rewrite: @escaping @Sendable (JSONObject) -> JSONObject) -> WalletInstanceAttester {
        attester(fixture, path: path, body: { body in
            guard let object = (try? JSONValue.parse(body))?.objectValue else { return body }
            return rewrite(object).serialized()
        })
    }

    static func attester(_ fixture: ProviderFixture, path: String, body rewrite: @escaping @Sendable (Data) -> Data) -> WalletInstanceAttester {
        let dir = fixture.directory.appendingPathComponent("wallet-\(UUID().uuidString)")
        let integrity = TestDeviceIntegrityService(
            keys: FileKeyStore(directory: dir.appendingPathComponent("keys")), authority: fixture.authority,
            application: ProviderFixture.application, clock: fixture.clock)
        let client = WalletInstanceClient(
            store: WalletInstanceStore(directory: dir), integrity: integrity,
            http: RewritingHTTP(inner: fixture.http, path: path, rewrite: rewrite), clock: fixture.clock)
        return WalletInstanceAttester(client: client, anchors: [fixture.signingRoot], solution: .init(platform: .android))
    }

    static func expectRefusal(
        _ attester: WalletInstanceAttester, _ fixture: ProviderFixture, spec: ITWalletVersion, _ expected: AttestationCheckError
    ) async throws {
        let session = try await fixture.account().session
        do {
            _ = try await attester.activate(provider: fixture.server.baseURL, session: session, spec: spec)
            Issue.record("accepted; expected \(expected)")
        } catch {
            #expect(error == WalletInstanceError.attestation(expected))
        }
        #expect(try attester.client.store.load().state == .installed)
    }

    @Test func another10AnswerWithoutItsSDJWTIsRefused() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let attester = Self.attester(fixture, path: ITWalletEndpoint.attestation(.v1_0)) { answer in
            var answer = answer
            answer["wallet_attestations"] = .array((answer["wallet_attestations"]?.arrayValue ?? []).filter { $0["format"]?.stringValue != "dc+sd-jwt" })
            return answer
        }
        try await Self.expectRefusal(attester, fixture, spec: .v1_0, .format("dc+sd-jwt", "missing from wallet_attestations"))
    }

    /// The `dc+sd-jwt` with `transform` applied to its compact text.
    static func sdJWTRewriting(_ fixture: ProviderFixture, _ transform: @escaping @Sendable (String) -> String) -> WalletInstanceAttester {
        attester(fixture, path: ITWalletEndpoint.attestation(.v1_0)) { answer in
            var answer = answer
            answer["wallet_attestations"] = .array((answer["wallet_attestations"]?.arrayValue ?? []).map { entry in
                guard entry["format"]?.stringValue == "dc+sd-jwt", let text = entry["wallet_attestation"]?.stringValue else { return entry }
                return ["format": "dc+sd-jwt", "wallet_attestation": .string(transform(text))]
            })
            return answer
        }
    }

    /// A Disclosure the provider did not sign (its digest is in no `_sd`), put in place of its `wallet_name`.
    @Test func a10SDJWTWithAForeignDisclosureIsRefused() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let forged = Disclosure(salt: "c2FsdHNhbHRzYWx0c2FsdA", claimName: "wallet_name", claimValue: "Another Wallet").encoded
        let attester = Self.sdJWTRewriting(fixture) { text in
            var parts = text.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
            for index in parts.indices.dropFirst() where (try? Disclosure(parsing: parts[index]))?.claimName == "wallet_name" {
                parts[index] = forged
            }
            return parts.joined(separator: "~")
        }
        let session = try await fixture.account().session
        do {
            _ = try await attester.activate(provider: fixture.server.baseURL, session: session, spec: .v1_0)
            Issue.record("accepted a Disclosure the provider did not sign")
        } catch {
            guard case .attestation(.format(let format, let reason)) = error else { throw error }
            #expect(format == "dc+sd-jwt")
            #expect(reason.hasPrefix("a Disclosure does not match the issuer JWT"))
        }
        #expect(try attester.client.store.load().state == .installed)
    }

    /// Production's form of the `dc+sd-jwt` (no trailing `~`) is the same proof: accepted.
    @Test func a10SDJWTWithoutTheTrailingTildeIsAccepted() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let attester = Self.sdJWTRewriting(fixture) { text in text.hasSuffix("~") ? String(text.dropLast()) : text }
        let record = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: .v1_0)
        #expect(record.state == .operational)
        #expect(record.attestationFormats?["dc+sd-jwt"]?.hasSuffix("~") == false)
    }

    @Test func a10MDocOfAnotherKeyIsRefused() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        // Another instance's mso_mdoc, genuinely signed by the provider, but bound to that instance's key.
        let other = WalletInstanceVersionTests.attester(fixture)
        let otherRecord = try await other.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: .v1_0)
        let foreignMDoc = try #require(otherRecord.attestationFormats?["mso_mdoc"])
        let attester = Self.attester(fixture, path: ITWalletEndpoint.attestation(.v1_0)) { answer in
            var answer = answer
            answer["wallet_attestations"] = .array((answer["wallet_attestations"]?.arrayValue ?? []).map { entry in
                guard entry["format"]?.stringValue == "mso_mdoc" else { return entry }
                return ["format": "mso_mdoc", "wallet_attestation": .string(foreignMDoc)]
            })
            return answer
        }
        try await Self.expectRefusal(attester, fixture, spec: .v1_0, .notBoundToOurKey("mso_mdoc"))
    }

    @Test(arguments: [ITWalletVersion.v1_3, .v1_5])
    func aWIAWithAChangedSignatureOrAnotherInstancesWIAIsRefused(version: ITWalletVersion) async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let flipped = Self.attester(fixture, path: ITWalletEndpoint.attestation(version)) { answer in
            let jwt = answer["wallet_instance_attestation"]?.stringValue ?? ""
            // One character inside the signature changed (not the last, whose low bits are padding): the JWS no
            // longer verifies with the x5c leaf.
            var characters = Array(jwt)
            guard characters.count > 10 else { return answer }
            characters[characters.count - 10] = characters[characters.count - 10] == "A" ? "B" : "A"
            return ["wallet_instance_attestation": .string(String(characters))]
        }
        let session = try await fixture.account().session
        do {
            _ = try await flipped.activate(provider: fixture.server.baseURL, session: session, spec: version)
            Issue.record("a WIA with a changed signature was accepted")
        } catch {
            guard case .attestation(.untrustedSignature) = error else { Issue.record("expected untrustedSignature, got \(error)"); return }
        }
        let other = WalletInstanceVersionTests.attester(fixture)
        let foreign = try #require(
            try await other.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: version).walletAttestation)
        let replayed = Self.attester(fixture, path: ITWalletEndpoint.attestation(version)) { _ in ["wallet_instance_attestation": .string(foreign)] }
        try await Self.expectRefusal(replayed, fixture, spec: version, .notBoundToOurKey(ITWalletType.clientAttestation))
    }

    @Test func aForcedVersionTheProviderDoesNotAdvertiseIsRefusedByName() async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        // The provider's Entity Configuration as a 0.9/1.0-only provider publishes it: its own claims without the
        // 1.3 and 1.5 entity types, signed again with its federation key (so the federation check still passes).
        let federationKey = try P256.Signing.PrivateKey(
            pemRepresentation: try String(contentsOf: fixture.directory.appendingPathComponent("provider-key.pem"), encoding: .utf8))
        let narrowed: @Sendable (Data) -> Data = { body in
            guard let jws = try? CompactJWS(parsing: String(decoding: body, as: UTF8.self)), var claims = try? jws.payloadJSON() else { return body }
            var metadata = claims["metadata"]?.objectValue ?? [:]
            metadata[ITWalletMetadata.walletSolution] = nil
            metadata[ITWalletMetadata.openIDWalletProvider] = nil
            claims["metadata"] = .object(metadata)
            return Data(((try? CompactJWS.sign(header: jws.header, claims: claims, key: .es256(federationKey)))?.compact ?? "").utf8)
        }
        let forced = Self.attester(fixture, path: ITWalletEndpoint.entityConfiguration, body: narrowed)
        let entity = try await forced.discover(provider: fixture.server.baseURL)
        #expect(entity.versions == [.v0_9, .v1_0])
        try await Self.expectRefusal(forced, fixture, spec: .v1_5, .versionNotAdvertised(.v1_5, advertised: [.v0_9, .v1_0]))
        // Without --spec the same wallet speaks the newest version in common: 1.0, three formats.
        let record = try await forced.activate(provider: fixture.server.baseURL, session: try await fixture.account().session)
        #expect(record.specVersion == .v1_0 && record.attestationFormats?.count == 3)
    }

    @Test(arguments: [ITWalletVersion.v1_3, .v1_5])
    func anIOSInstanceGetsItsWIAWithAppAttest(version: ITWalletVersion) async throws {
        let fixture = try await ProviderFixture()
        defer { Task { await fixture.shutdown() } }
        let attester = WalletInstanceAttester(client: fixture.iosWallet(), anchors: [fixture.signingRoot], solution: .init(platform: .ios))
        let record = try await attester.activate(provider: fixture.server.baseURL, session: try await fixture.account().session, spec: version)
        #expect(record.state == .operational && record.specVersion == version)
        #expect(try await attester.attest().walletAttestation != record.walletAttestation)
    }
}
