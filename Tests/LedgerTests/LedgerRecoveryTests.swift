import Crypto
import Foundation
import LedgerProtocol
import OpenID4VP
import Synchronization
import TesseraJOSE
import Testing
import TesseraHTTP
import TesseraCore

@testable import VaultClient

/// A login whose answer never reaches the device (the ledger committed the rotation, then the connection dropped
/// or the ledger crashed): the device keeps its state, and that state still logs in. The ledger keeps exactly two
/// credential versions, the current one and the one the device last presented; anything older is stale.
@Suite(.serialized)
struct LedgerRecoveryTests {
    @Test(arguments: LedgerDatabases.all)
    func aLostAnswerLeavesThePreviousStateUsable(database: String) async throws {
        let fixture = try await LedgerFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let transport = DroppingTransport(fixture.http)
        let client = VaultClient(store: VaultStateStore(directory: fixture.directory.appendingPathComponent("device-lost")), http: transport)
        _ = try await client.enroll(
            ledger: fixture.server.baseURL, invitation: try await fixture.server.invite(), password: LedgerFixture.password,
            deviceID: "lost", deviceType: "linux")
        #expect(try await client.authenticate(password: LedgerFixture.password).cekVersion == 2)
        let v2 = try client.store.load()

        // The ledger rotates to version 3, the answer is lost: the device's state is not replaced.
        transport.dropNextExecuteAnswer()
        await #expect(throws: VaultError.self) { _ = try await client.authenticate(password: LedgerFixture.password) }
        #expect(try client.store.load() == v2)
        let lost = try #require(transport.dropped.first)
        let lostBlob = try #require(lost.json?["credential_package"]?["blob"]?.objectValue)
        #expect(lost.status == 200 && lostBlob["cek_version"]?.int64Value == 3)

        // Version 2 still logs in (its LAT is proven, its blob opens) and the ledger moves on to version 4.
        #expect(try await client.authenticate(password: LedgerFixture.password).cekVersion == 4)
        let v4 = try client.store.load()
        let v3Blob = VaultState.Blob(
            ciphertext: try #require(lostBlob["ciphertext"]?.stringValue), nonce: try #require(lostBlob["nonce"]?.stringValue),
            epk: try #require(lostBlob["epk"]?.stringValue), cekVersion: 3)
        // The package never delivered (3) is gone.
        #expect(try await execute(fixture, v4, blob: v3Blob) == (403, "stale_credential"))

        // Once the device uses version 4, version 2 is stale too: its blob and its LAT.
        #expect(try await client.authenticate(password: LedgerFixture.password).cekVersion == 5)
        let v5 = try client.store.load()
        #expect(try await execute(fixture, v5, blob: v2.blob) == (403, "stale_credential"))
        let (old, _) = try await signedActionRequest(fixture, v5, latVersion: v2.latVersion)
        #expect(old.status == 403 && old.error == "stale_credential")
        // The kept version (4) and the current one (5) are proven with their own LAT.
        for state in [v4, v5] {
            let (answer, clientNonce) = try await signedActionRequest(fixture, v5, latVersion: state.latVersion)
            let json = try #require(answer.json)
            let proof = try #require(Base64URL.bytes(json["lat_proof"]?.stringValue))
            let jti = try #require(json["jti"]?.stringValue)
            #expect(json["lat_version"]?.int64Value == Int64(state.latVersion))
            #expect(LATProof.check(proof, lat: try Base64URL.decode(state.latToken), userGUID: state.userGUID, clientNonce: clientNonce, jti: jti))
        }
        #expect(try await client.authenticate(password: LedgerFixture.password).cekVersion == 6)
    }

    @Test func aMalformedLATVersionIsInvalidRequest() async throws {
        let fixture = try await LedgerFixture()
        defer { Task { await fixture.shutdown() } }
        let state = try await fixture.enrolled().store.load()
        for bad: JSONValue in ["1", -1, 1.5, .integer(Int64(Int32.max) + 1), .null] {
            let body: JSONObject = ["user_guid": .string(state.userGUID), "action_type": "authenticate", "client_nonce": "n", "lat_version": bad]
            let answer = try await fixture.post("/api/v1/action/request", body.serialized(), headers: try Self.sign(state, body.serialized()))
            #expect(answer.status == 400 && answer.error == "invalid_request", "lat_version \(bad)")
        }
    }

    // MARK: helpers

    /// An action request for `state`'s user naming `latVersion`; the answer and the client nonce.
    func signedActionRequest(_ fixture: LedgerFixture, _ state: VaultState, latVersion: Int) async throws -> (LedgerFixture.Answer, String) {
        let clientNonce = UUID().uuidString
        let body = ActionRequest(userGUID: state.userGUID, actionType: "authenticate", clientNonce: clientNonce, latVersion: latVersion).json.serialized()
        return (try await fixture.post("/api/v1/action/request", body, headers: try Self.sign(state, body)), clientNonce)
    }

    static func sign(_ state: VaultState, _ body: Data) throws -> [(name: String, value: String)] {
        let key = try Curve25519.Signing.PrivateKey(rawRepresentation: try Base64URL.decode(state.devicePrivateKey))
        return try DeviceSignature.headers(
            key: key, method: "POST", path: "/api/v1/action/request", timestamp: Int64(Date().timeIntervalSince1970), nonce: UUID().uuidString,
            body: body)
    }

    /// auth/execute for `state` (its keys, the right password) presenting `blob`: the status and error code.
    func execute(_ fixture: LedgerFixture, _ state: VaultState, blob: VaultState.Blob) async throws -> (Int, String?) {
        let (action, _) = try await fixture.actionRequest(state)
        let json = try #require(action.json)
        let token = try #require(json["action_token"]?.stringValue)
        let body = try fixture.executeBody(
            state, jti: try #require(json["jti"]?.stringValue), keyID: try #require(json["use_key_id"]?.stringValue), blob: blob,
            kdf: try KDFParameters(json: json["kdf"]?.objectValue))
        let answer = try await fixture.post("/api/v1/auth/execute", body, headers: [("Authorization", "Bearer \(token)")])
        return (answer.status, answer.error)
    }
}

/// Passes requests through; when armed, performs the next auth/execute and then throws as if the connection had
/// dropped, keeping the answer the device never saw.
final class DroppingTransport: HTTPClient {
    private let inner: any HTTPClient
    private let state = Mutex<(armed: Bool, dropped: [LedgerFixture.Answer])>((false, []))

    init(_ inner: any HTTPClient) { self.inner = inner }

    func dropNextExecuteAnswer() { state.withLock { $0.armed = true } }
    var dropped: [LedgerFixture.Answer] { state.withLock { $0.dropped } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let response = try await inner.send(request)
        guard request.url.path == "/api/v1/auth/execute" else { return response }
        let drop = state.withLock { state in
            defer { state.armed = false }
            if state.armed { state.dropped.append(LedgerFixture.Answer(status: response.status, body: response.body)) }
            return state.armed
        }
        if drop { throw .transport("connection reset before the answer arrived (dropped by the test)") }
        return response
    }
}
