import Foundation
import NATSClient
import TesseraJOSE
import Testing
import Vault
import VaultClient
import VaultProtocol

/// The app and its vault end to end on the in-process bus (same accounts and permissions as nats-server; the
/// real-server runs are in `VaultNATSServerTests`).
@Suite(.serialized)
struct VaultSessionTests {
    @Test func bootstrapThenEveryStoredKindRoundTrips() async throws {
        let fixture = try await VaultFixture.make()
        let host = fixture.host("h1")
        await host.tick()
        let member = try await fixture.enroll()
        await host.tick()
        #expect(await host.activeVaults == [member.userGUID])
        let app = try fixture.app(member)
        let result = try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
        #expect(result.sessionInfo.encryptionEnabled)
        #expect(result.ownerSpace == "OwnerSpace." + member.userGUID.replacingOccurrences(of: "-", with: ""))

        // secrets.datastore
        #expect(try await app.addSecret("bank/pin", value: "1234", metadata: ["kind": "pin"]).version >= 1)
        await #expect(throws: VaultError.vault(code: "already_exists", message: "secret bank/pin already exists")) {
            try await app.addSecret("bank/pin", value: "9999")
        }
        let stored = try await app.secret("bank/pin")
        #expect(stored.value == "1234" && stored.metadata == ["kind": "pin"])
        let updated = try await app.updateSecret("bank/pin", value: "4321", expectedVersion: stored.version)
        // A refused command leaves nothing behind: not even the version it took before refusing.
        let versionBefore = try await app.credentialVersion()
        await #expect(throws: VaultError.self) { try await app.updateSecret("bank/pin", value: "0000", expectedVersion: stored.version) }
        #expect(try await app.credentialVersion() == versionBefore)
        #expect(try await app.secret("bank/pin").value == "4321")
        _ = try await app.addSecret("bank/iban", value: "IT60X0542811101000000123456")
        _ = try await app.addSecret("mail/password", value: "hunter2")
        #expect(try await app.listSecrets(prefix: "bank/").items.map(\.key) == ["bank/iban", "bank/pin"])
        let firstPage = try await app.listSecrets(limit: 2)
        #expect(firstPage.items.count == 2 && firstPage.nextCursor == "bank/pin")
        #expect(try await app.listSecrets(cursor: firstPage.nextCursor).items.map(\.key) == ["mail/password"])
        #expect(try await app.deleteSecret("mail/password").deleted)
        await #expect(throws: VaultError.vault(code: "not_found", message: "secret mail/password does not exist")) {
            try await app.secret("mail/password")
        }
        #expect(updated.version > stored.version)

        // profile
        _ = try await app.updateProfile(set: ["name": "Ada", "email": "ada@example.org"])
        #expect(try await app.profile().profile == ["name": "Ada", "email": "ada@example.org"])
        _ = try await app.updateProfile(remove: ["email"])
        #expect(try await app.profile(fields: ["name", "email"]).profile == ["name": "Ada"])
        #expect(try await app.deleteProfile().deleted)
        #expect(try await app.profile().profile.isEmpty)

        // credential: sync returns everything after a version, deletions included
        let before = try await app.credentialVersion()
        let pid = try await app.storeCredential(id: "pid", format: "dc+sd-jwt", credential: "eyJ.sd-jwt~")
        #expect(try await app.credential("pid").credential == "eyJ.sd-jwt~")
        let sync = try await app.syncCredentials(since: before)
        #expect(sync.credentials.map(\.credentialID) == ["pid"] && sync.version >= pid.version)
        #expect(try await app.syncCredentials(since: sync.version).credentials.isEmpty)

        // this app's NATS credentials
        let status = try await app.credentialsStatus()
        #expect(status.credentialID == result.credentialID && status.ttlSeconds > 0)
        let refreshed = try await app.refreshCredentials(requestedTTLHours: 2)
        #expect(refreshed.credentialID != result.credentialID)
        #expect(try await app.credentialsStatus().credentialID == refreshed.credentialID)

        await app.close()
        await host.shutdown()
        await fixture.shutdown()
    }

    @Test func theSessionSurvivesAnAppRestartARotationAndAHostTakeover() async throws {
        let fixture = try await VaultFixture.make()
        let first = fixture.host("h1")
        await first.tick()
        let member = try await fixture.enroll()
        await first.tick()
        let app = try fixture.app(member)
        try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
        _ = try await app.addSecret("k", value: "v1")
        await app.close()

        // The app restarts: same device key store, no bootstrap.
        let restarted = try fixture.app(member)
        try await restarted.connect()
        #expect(try await restarted.secret("k").value == "v1")
        try await restarted.rotateSession()
        _ = try await restarted.updateSecret("k", value: "v2")

        // The host goes away; another one takes the vault over and knows the session.
        await first.shutdown()
        let second = fixture.host("h2")
        await second.tick()
        #expect(await second.activeVaults == [member.userGUID])
        #expect(try await restarted.secret("k").value == "v2")
        await restarted.close()
        await second.shutdown()
        await fixture.shutdown()
    }

    @Test func aReplyNotSignedByTheVaultsIdentityKeyIsRefused() async throws {
        let fixture = try await VaultFixture.make()
        let host = fixture.host("h1")
        let member = try await fixture.enroll()
        await host.tick()
        let impostorKey = Data(repeating: 7, count: 32)
        let app = try fixture.app(member, identityKey: impostorKey)
        await #expect(throws: VaultError.self) {
            try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device, timeout: .seconds(2))
        }
        #expect(try FileVaultSessionKeyStore(directory: fixture.directory.appendingPathComponent(member.userGUID + "-app")).loadSession() == nil)
        await host.shutdown()
        await fixture.shutdown()
    }

    @Test func theVaultRotatesTheAppsNATSCredentialsBeforeTheyExpire() async throws {
        let fixture = try await VaultFixture.make()
        let clock = MovableClock()
        let host = fixture.host("h1", clock: clock)
        let member = try await fixture.enroll()
        await host.tick()
        let app = try fixture.app(member)
        let bootstrap = try await app.bootstrap(credentials: member.bootstrap, device: VaultConnection.device)
        let store = FileVaultSessionKeyStore(directory: fixture.directory.appendingPathComponent(member.userGUID + "-app"))
        var pushes = app.notifications.makeAsyncIterator()
        _ = try await app.addSecret("a", value: "1")
        #expect(try store.loadSession()?.credentialID == bootstrap.credentialID)

        // 19 of the credentials' 24 hours later, the next command makes the vault push new ones.
        clock.advance(by: 19 * 3600)
        _ = try await app.addSecret("b", value: "2")
        let push = try #require(await pushes.next())
        #expect(push.type == VaultNotification.credentialsRotate.rawValue)
        let rotated = try push.push(CredentialsRotatePush.self)
        #expect(rotated.credentialID != bootstrap.credentialID && rotated.expiresAt > bootstrap.expiresAt)
        #expect(try store.loadSession()?.credentialID == rotated.credentialID)
        // Not again for the next command: the new ones are fresh.
        _ = try await app.addSecret("c", value: "3")
        #expect(try await app.credentialsStatus().credentialID == rotated.credentialID)

        // The next run of the app connects with the rotated credentials.
        await app.close()
        let restarted = try fixture.app(member)
        try await restarted.connect()
        #expect(try await restarted.secret("b").value == "2")
        await restarted.close()
        await host.shutdown()
        await fixture.shutdown()
    }
}
