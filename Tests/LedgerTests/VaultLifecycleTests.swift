import Crypto
import Foundation
import Ledger
import LedgerProtocol
import OpenID4VP
import TesseraCore
import TesseraJOSE
import Testing
import VaultClient
import TesseraHTTP

/// The ledger's vault lifecycle over real HTTP: provisioning at finalize, `/vault/{health, status, start, stop,
/// terminate}` through VaultClient, and every refusal (no or wrong signature, another user, a failed provisioning, no
/// backend). The backend is an in-memory stand-in for the vault hosts' database.
@Suite(.serialized)
struct VaultLifecycleTests {
    @Test func enrollmentReturnsTheVaultIdentityKey() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        let client = fixture.client()
        let enrolled = try await client.enroll(
            ledger: fixture.server.baseURL, invitation: try await fixture.server.invite(), password: LedgerFixture.password,
            deviceID: "d", deviceType: "linux")
        let key = try #require(await vaults.identityKey(enrolled.userGUID))
        #expect(enrolled.vaultIdentityPublicKey == key)
        #expect(try client.store.load().vaultIdentityPublicKey == Base64URL.encode(key))
        // The key survives a login (the credentials rotate, the pinned key stays).
        _ = try await client.authenticate(password: LedgerFixture.password)
        #expect(try client.store.load().vaultIdentityPublicKey == Base64URL.encode(key))

        // A ledger without vault hosts: no `vault` member, no key.
        let plain = try await LedgerFixture()
        defer { Task { await plain.shutdown() } }
        let other = try await plain.client().enroll(
            ledger: plain.server.baseURL, invitation: try await plain.server.invite(), password: LedgerFixture.password,
            deviceID: "e", deviceType: "linux")
        #expect(other.vaultIdentityPublicKey == nil)
    }

    @Test func statusStartStopAndTerminateThroughVaultClient() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        let state = try client.store.load()
        let key = try #require(await vaults.identityKey(state.userGUID))

        var status = try await client.status()
        #expect(status.state == "provisioning" && status.desiredState == "running" && status.progress == 40 && status.host == nil)
        #expect(status.identityPublicKey == key)
        status = try await client.stop()
        #expect(status.state == "stopped" && status.desiredState == "stopped" && status.host == nil)
        status = try await client.start()
        #expect(status.state == "running" && status.desiredState == "running" && status.progress == 100 && status.host == "host-a")
        #expect(try await client.status() == status)

        let before = try client.store.load()
        status = try await client.terminate(password: LedgerFixture.password)
        #expect(status.state == "terminated" && status.desiredState == "terminated" && status.host == nil)
        #expect(await vaults.terminations(state.userGUID) == 1)
        // Terminate is a password authentication: the credentials rotated and were saved.
        let after = try client.store.load()
        #expect(after.blob.cekVersion == before.blob.cekVersion + 1 && after.latToken != before.latToken)
        // Idempotent.
        #expect(try await client.terminate(password: LedgerFixture.password).state == "terminated")
        // A terminated vault cannot run again.
        await #expect(throws: VaultError.ledger(status: 409, error: "vault_terminated", description: "this vault was terminated and cannot run again")) {
            _ = try await client.start()
        }
        await #expect(throws: VaultError.ledger(status: 409, error: "vault_terminated", description: "this vault was terminated and cannot run again")) {
            _ = try await client.stop()
        }
        #expect(try await client.status().state == "terminated")
        // The login still works after all of it.
        _ = try await client.authenticate(password: LedgerFixture.password)
    }

    @Test func unauthenticatedAndWronglySignedCallsAreRefused() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        let state = try client.store.load()
        let device = try Curve25519.Signing.PrivateKey(rawRepresentation: try Base64URL.decode(state.devicePrivateKey))

        // No headers at all; the user named but nothing signed.
        var answer = try await fixture.call(.get, "/vault/status")
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        answer = try await fixture.call(.post, "/vault/start", headers: [("X-User-GUID", state.userGUID)])
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        // Signed by a key that is not this user's device key.
        answer = try await fixture.signed(.post, "/vault/start", user: state.userGUID, key: Curve25519.Signing.PrivateKey())
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        // A signature for another path, another method, a stale timestamp.
        answer = try await fixture.signed(.post, "/vault/start", user: state.userGUID, key: device, signedPath: "/vault/stop")
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        answer = try await fixture.signed(.get, "/vault/status", user: state.userGUID, key: device, signedMethod: "POST")
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        answer = try await fixture.signed(.get, "/vault/status", user: state.userGUID, key: device, timestamp: Date().addingTimeInterval(-600))
        #expect(answer.status == 401 && answer.error == "invalid_signature")
        // A replayed nonce.
        answer = try await fixture.signed(.post, "/vault/stop", user: state.userGUID, key: device, nonce: "once")
        #expect(answer.status == 200 && answer.json?["state"]?.stringValue == "stopped")
        answer = try await fixture.signed(.post, "/vault/start", user: state.userGUID, key: device, nonce: "once")
        #expect(answer.status == 409 && answer.error == "replayed_nonce")
        #expect(try await vaults.status(userGUID: state.userGUID)?.state == "stopped")

        // Terminate: no token, a token for logging in, the wrong password; a terminate token is no login token.
        let kdf = try await state.kdf(fixture)
        answer = try await fixture.post("/vault/terminate", Data("{}".utf8))
        #expect(answer.status == 401 && answer.error == "invalid_token")
        var (token, jti, keyID) = try await fixture.action(state, type: "authenticate")
        answer = try await fixture.post(
            "/vault/terminate", try fixture.executeBody(state, jti: jti, keyID: keyID, kdf: kdf), headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 403 && answer.error == "insufficient_scope")
        (token, jti, keyID) = try await fixture.action(state, type: "vault_terminate")
        answer = try await fixture.post(
            "/api/v1/auth/execute", try fixture.executeBody(state, jti: jti, keyID: keyID, kdf: kdf),
            headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 403 && answer.error == "insufficient_scope")
        (token, jti, keyID) = try await fixture.action(state, type: "vault_terminate")
        answer = try await fixture.post(
            "/vault/terminate", try fixture.executeBody(state, jti: jti, keyID: keyID, password: "not the password", kdf: kdf),
            headers: [("Authorization", "Bearer \(token)")])
        #expect(answer.status == 401 && answer.error == "invalid_credentials")
        // An unknown action type is refused at the action request.
        let unknown = try await fixture.actionAnswer(state, type: "vault_delete_everything")
        #expect(unknown.status == 400 && unknown.error == "invalid_request")
        #expect(await vaults.terminations(state.userGUID) == 0)
        #expect(try await vaults.status(userGUID: state.userGUID)?.state == "stopped")
    }

    @Test func anotherUsersVaultIsNotReachable() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        let alice = try await fixture.enrolled("alice")
        let bob = try await fixture.enrolled("bob")
        let aliceState = try alice.store.load(), bobState = try bob.store.load()
        let aliceVaultKey = try #require(await vaults.identityKey(aliceState.userGUID))
        let bobVaultKey = try #require(await vaults.identityKey(bobState.userGUID))
        #expect(aliceVaultKey != bobVaultKey)
        _ = try await bob.start()

        // Alice's device signs a call that names Bob: checked with Bob's device key, refused.
        let aliceKey = try Curve25519.Signing.PrivateKey(rawRepresentation: try Base64URL.decode(aliceState.devicePrivateKey))
        for (method, path) in [(HTTPRequest.Method.get, "/vault/status"), (.post, "/vault/stop")] {
            let answer = try await fixture.signed(method, path, user: bobState.userGUID, key: aliceKey)
            #expect(answer.status == 401 && answer.error == "invalid_signature")
        }
        // Alice's own calls reach only her vault; her terminate token terminates only hers.
        #expect(try await alice.status().identityPublicKey == aliceVaultKey)
        _ = try await alice.terminate(password: LedgerFixture.password)
        let bobStatus = try await bob.status()
        #expect(bobStatus.state == "running" && bobStatus.identityPublicKey == bobVaultKey)
        #expect(await vaults.terminations(bobState.userGUID) == 0)
        // Bob's saved state does not let Alice's device in either: a client with Alice's key and Bob's guid.
        var forged = bobState
        forged.devicePrivateKey = aliceState.devicePrivateKey
        let mallory = fixture.client("mallory")
        try mallory.store.save(forged)
        await #expect(throws: VaultError.ledger(status: 401, error: "invalid_signature", description: "the device signature is missing, invalid or stale")) {
            _ = try await mallory.stop()
        }
        #expect(try await bob.status().state == "running")
    }

    /// A vault that cannot be provisioned fails finalize with 503 and leaves the enrollment open: the same finalize
    /// succeeds once the vault hosts are back.
    @Test func aFailedProvisioningLeavesFinalizeRetryable() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        await vaults.failNextProvisions(1)
        await #expect(throws: VaultError.ledger(status: 503, error: "temporarily_unavailable", description: "the vault could not be provisioned")) {
            _ = try await fixture.enrolled()
        }

        let (session, user) = try await fixture.startedEnrollment()
        let finalize = (["enrollment_session": .string(session), "user_guid": .string(user)] as JSONObject).serialized()
        await vaults.failNextProvisions(2)
        for _ in 0..<2 {
            let failed = try await fixture.post("/api/v1/enroll/finalize", finalize)
            #expect(failed.status == 503 && failed.error == "temporarily_unavailable")
        }
        let finalized = try await fixture.post("/api/v1/enroll/finalize", finalize)
        try #require(finalized.status == 201, "finalize: \(finalized.status) \(finalized.error ?? "")")
        let vault = try #require(finalized.json?["vault"]?.objectValue)
        let key = try #require(await vaults.identityKey(user))
        #expect(vault["identity_public_key"]?.stringValue == Base64URL.encode(key))
        #expect(vault["status"]?["state"]?.stringValue == "provisioning")
        #expect(finalized.json?["credential_package"] != nil)
        // Single use still: a fourth finalize finds no enrollment.
        let again = try await fixture.post("/api/v1/enroll/finalize", finalize)
        #expect(again.status == 404 && again.error == "unknown_session")
    }

    @Test func healthAndAMissingBackendOrVault() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        var answer = try await fixture.call(.get, "/vault/health")
        #expect(answer.status == 200 && answer.json == ["status": "ok"])
        let client = try await fixture.enrolled()
        #expect(try await client.vaultHealth(ledger: fixture.server.baseURL))

        // The backend fails: health 503, and so does every call that needs it.
        await vaults.setHealthy(false)
        answer = try await fixture.call(.get, "/vault/health")
        #expect(answer.status == 503 && answer.error == "temporarily_unavailable")
        #expect(try await client.vaultHealth(ledger: fixture.server.baseURL) == false)
        await #expect(throws: VaultError.ledger(status: 503, error: "temporarily_unavailable", description: "the vault hosts cannot be reached: try again later")) {
            _ = try await client.status()
        }
        await vaults.setHealthy(true)

        // No vault for this user: 404, for terminate before the password is even looked at.
        let state = try client.store.load()
        await vaults.forget(state.userGUID)
        await #expect(throws: VaultError.ledger(status: 404, error: "vault_not_found", description: "this user has no vault")) {
            _ = try await client.status()
        }
        await #expect(throws: VaultError.ledger(status: 404, error: "vault_not_found", description: "this user has no vault")) {
            _ = try await client.start()
        }
        await #expect(throws: VaultError.ledger(status: 404, error: "vault_not_found", description: "this user has no vault")) {
            _ = try await client.terminate(password: LedgerFixture.password)
        }
        #expect(await vaults.terminations(state.userGUID) == 0)

        // A ledger without vault hosts: 503 vault_unavailable everywhere under /vault.
        let plain = try await LedgerFixture()
        defer { Task { await plain.shutdown() } }
        answer = try await plain.call(.get, "/vault/health")
        #expect(answer.status == 503 && answer.error == "vault_unavailable")
        let plainClient = try await plain.enrolled()
        await #expect(throws: VaultError.ledger(status: 503, error: "vault_unavailable", description: "this ledger has no vault hosts")) {
            _ = try await plainClient.status()
        }
        await #expect(throws: VaultError.ledger(status: 503, error: "vault_unavailable", description: "this ledger has no vault hosts")) {
            _ = try await plainClient.terminate(password: LedgerFixture.password)
        }
    }

    /// The app pins the identity key from enrollment: a ledger that later shows another key is not believed.
    @Test func aChangedIdentityKeyIsRefusedByTheApp() async throws {
        let vaults = InMemoryVaultLifecycle()
        let fixture = try await LedgerFixture { $0.vault = vaults }
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        await vaults.replaceIdentityKey(try client.store.load().userGUID)
        await #expect(throws: VaultError.invalidResponse("the vault's identity key is not the one received at enrollment")) {
            _ = try await client.status()
        }
    }
}

/// The vault hosts' database in a dictionary: a vault per user with an Ed25519 identity key; provisioning is
/// idempotent, a terminated vault stays terminated. `failNextProvisions` and `setHealthy` make it fail on purpose.
actor InMemoryVaultLifecycle: LedgerVaultLifecycle {
    struct Failure: Error {}
    private var vaults: [String: LedgerVaultStatus] = [:]
    private var terminated: [String: Int] = [:]
    private var failures = 0
    private var healthy = true

    func provision(userGUID: String, now: Date) async throws -> Data {
        if failures > 0 {
            failures -= 1
            throw Failure()
        }
        if let vault = vaults[userGUID] { return vault.identityPublicKey }
        let key = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation
        vaults[userGUID] = LedgerVaultStatus(
            state: "provisioning", desiredState: "running", progress: 40, host: nil, updatedAt: now, identityPublicKey: key)
        return key
    }

    func status(userGUID: String) async throws -> LedgerVaultStatus? {
        guard healthy else { throw Failure() }
        return vaults[userGUID]
    }

    func start(userGUID: String, now: Date) async throws -> LedgerVaultStatus {
        try update(userGUID) { vault in
            vault.state = "running"
            vault.desiredState = "running"
            vault.progress = 100
            vault.host = "host-a"
            vault.updatedAt = now
        }
    }

    func stop(userGUID: String, now: Date) async throws -> LedgerVaultStatus {
        try update(userGUID) { vault in
            vault.state = "stopped"
            vault.desiredState = "stopped"
            vault.host = nil
            vault.updatedAt = now
        }
    }

    func terminate(userGUID: String, now: Date) async throws -> LedgerVaultStatus {
        terminated[userGUID, default: 0] += 1
        return try update(userGUID) { vault in
            vault.state = "terminated"
            vault.desiredState = "terminated"
            vault.host = nil
            vault.updatedAt = now
        }
    }

    func health() async throws {
        guard healthy else { throw Failure() }
    }

    private func update(_ user: String, _ change: (inout LedgerVaultStatus) -> Void) throws -> LedgerVaultStatus {
        guard healthy else { throw Failure() }
        guard var vault = vaults[user] else { throw LedgerVaultLifecycleError.vaultNotFound }
        if vault.desiredState != "terminated" { change(&vault) }
        vaults[user] = vault
        return vault
    }

    func identityKey(_ user: String) -> Data? { vaults[user]?.identityPublicKey }
    func terminations(_ user: String) -> Int { terminated[user] ?? 0 }
    func failNextProvisions(_ count: Int) { failures = count }
    func setHealthy(_ value: Bool) { healthy = value }
    func forget(_ user: String) { vaults[user] = nil }
    func replaceIdentityKey(_ user: String) { vaults[user]?.identityPublicKey = Curve25519.Signing.PrivateKey().publicKey.rawRepresentation }
}

extension LedgerFixture {
    func call(_ method: HTTPRequest.Method, _ path: String, headers: [(name: String, value: String)] = []) async throws -> Answer {
        guard let url = URL(string: server.baseURL + path) else { throw LedgerFixtureError("bad path") }
        let response = try await http.send(HTTPRequest(method: method, url: url, headers: headers))
        return Answer(status: response.status, body: response.body)
    }

    /// A device-signed vault call with an empty body; `signedPath`/`signedMethod` sign something else than is sent.
    func signed(
        _ method: HTTPRequest.Method, _ path: String, user: String, key: Curve25519.Signing.PrivateKey,
        nonce: String = UUID().uuidString, timestamp: Date = Date(), signedPath: String? = nil, signedMethod: String? = nil
    ) async throws -> Answer {
        let headers = try DeviceSignature.headers(
            key: key, method: signedMethod ?? method.rawValue, path: signedPath ?? path, timestamp: Int64(timestamp.timeIntervalSince1970),
            nonce: nonce, body: Data())
        return try await call(method, path, headers: headers + [("X-User-GUID", user)])
    }

    /// A signed action request of `type` for `state`'s user.
    func actionAnswer(_ state: VaultState, type: String) async throws -> Answer {
        let body = (["user_guid": .string(state.userGUID), "action_type": .string(type), "client_nonce": .string(UUID().uuidString)] as JSONObject)
            .serialized()
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: try Base64URL.decode(state.devicePrivateKey))
        let headers = try DeviceSignature.headers(
            key: key, method: "POST", path: "/api/v1/action/request", timestamp: Int64(Date().timeIntervalSince1970),
            nonce: UUID().uuidString, body: body)
        return try await post("/api/v1/action/request", body, headers: headers)
    }

    /// The action token, jti and transaction key of a successful action request of `type`.
    func action(_ state: VaultState, type: String) async throws -> (token: String, jti: String, keyID: String) {
        let answer = try await actionAnswer(state, type: type)
        guard answer.status == 200, let json = answer.json, let token = json["action_token"]?.stringValue, let jti = json["jti"]?.stringValue,
            let keyID = json["use_key_id"]?.stringValue
        else { throw LedgerFixtureError("action/request \(type): \(answer.status) \(answer.error ?? "")") }
        return (token, jti, keyID)
    }

    /// enroll/start and set-password done by hand (no finalize): the enrollment session and user.
    func startedEnrollment() async throws -> (session: String, user: String) {
        let device = Curve25519.Signing.PrivateKey()
        let start: JSONObject = [
            "invitation_code": .string(try await server.invite()), "device_id": "retry", "device_type": "linux",
            "device_public_key": .string(Base64URL.encode(device.publicKey.rawRepresentation)),
        ]
        let started = try await post("/api/v1/enroll/start", start.serialized())
        guard started.status == 201, let json = started.json, let session = json["enrollment_session"]?.stringValue,
            let user = json["user_guid"]?.stringValue, let keyID = json["password_key_id"]?.stringValue,
            let utk = json["transaction_keys"]?.arrayValue?.first(where: { $0["key_id"]?.stringValue == keyID })?["public_key"]?.stringValue
        else { throw LedgerFixtureError("enroll/start: \(started.status)") }
        let kdf = try KDFParameters(json: json["kdf"]?.objectValue)
        let box = try Seal.seal(
            to: try Curve25519.KeyAgreement.PublicKey(rawRepresentation: try Base64URL.decode(utk)), info: .transactionEncryption,
            aad: LedgerAAD.password(userGUID: user, transaction: session, keyID: keyID), plaintext: try kdf.hash(password: Self.password),
            random: SystemRandomSource())
        let set = try await post("/api/v1/enroll/set-password", (["enrollment_session": .string(session), "user_guid": .string(user),
            "key_id": .string(keyID), "password": .object(box.json)] as JSONObject).serialized())
        guard set.status == 204 else { throw LedgerFixtureError("set-password: \(set.status)") }
        return (session, user)
    }
}

extension VaultState {
    /// The user's KDF parameters, as an action request answers them.
    func kdf(_ fixture: LedgerFixture) async throws -> KDFParameters {
        try KDFParameters(json: try await fixture.actionAnswer(self, type: "authenticate").json?["kdf"]?.objectValue)
    }
}
