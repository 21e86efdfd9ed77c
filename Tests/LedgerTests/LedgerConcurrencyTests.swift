import Crypto
import Foundation
import LedgerProtocol
import TesseraCore
import TesseraJOSE
import Testing

@testable import VaultClient

/// Races on single-use values and on one user's rotation, on SQLite and PostgreSQL.
@Suite(.serialized)
struct LedgerConcurrencyTests {
    /// 50 parallel `enroll/set-password` with the enrollment's one password key: exactly one 204, every other
    /// answer 409 `key_used`; then 20 parallel finalizes: exactly one 201. The winner's hash is the one stored: the
    /// user logs in with the password.
    @Test(arguments: LedgerDatabases.all)
    func oneEnrollmentKeyIsSpentOnce(database: String) async throws {
        let fixture = try await LedgerFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let device = Curve25519.Signing.PrivateKey()
        let start: JSONObject = [
            "invitation_code": .string(try await fixture.server.invite()), "device_id": "race", "device_type": "linux",
            "device_public_key": .string(Base64URL.encode(device.publicKey.rawRepresentation)),
        ]
        let started = try await fixture.post("/api/v1/enroll/start", start.serialized())
        try #require(started.status == 201, "enroll/start: \(started.status)")
        let json = try #require(started.json)
        let session = try #require(json["enrollment_session"]?.stringValue)
        let user = try #require(json["user_guid"]?.stringValue)
        let keyID = try #require(json["password_key_id"]?.stringValue)
        let utk = try #require(json["transaction_keys"]?.arrayValue?.first { $0["key_id"]?.stringValue == keyID }?["public_key"]?.stringValue)
        let kdf = try KDFParameters(json: json["kdf"]?.objectValue)
        let hash = try kdf.hash(password: LedgerFixture.password)
        let recipient = try Curve25519.KeyAgreement.PublicKey(rawRepresentation: try Base64URL.decode(utk))
        // Fifty bodies, each with its own box (the same hash sealed afresh), all for the one key.
        let bodies = try (0..<50).map { _ in
            let box = try Seal.seal(
                to: recipient, info: .transactionEncryption, aad: LedgerAAD.password(userGUID: user, transaction: session, keyID: keyID),
                plaintext: hash, random: SystemRandomSource())
            return (["enrollment_session": .string(session), "user_guid": .string(user), "key_id": .string(keyID), "password": .object(box.json)] as JSONObject)
                .serialized()
        }
        let answers = try await withThrowingTaskGroup(of: LedgerFixture.Answer.self) { group in
            for body in bodies { group.addTask { try await fixture.post("/api/v1/enroll/set-password", body) } }
            return try await group.reduce(into: [LedgerFixture.Answer]()) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 204 }.count == 1)
        let losers = answers.filter { $0.status != 204 }
        #expect(losers.count == 49)
        #expect(losers.allSatisfy { $0.status == 409 && $0.error == "key_used" }, "\(Set(losers.map { "\($0.status) \($0.error ?? "")" }))")

        let finalizeBody = (["enrollment_session": .string(session), "user_guid": .string(user)] as JSONObject).serialized()
        let finalized = try await withThrowingTaskGroup(of: LedgerFixture.Answer.self) { group in
            for _ in 0..<20 { group.addTask { try await fixture.post("/api/v1/enroll/finalize", finalizeBody) } }
            return try await group.reduce(into: [LedgerFixture.Answer]()) { $0.append($1) }
        }
        #expect(finalized.filter { $0.status == 201 }.count == 1)
        #expect(finalized.filter { $0.status != 201 }.allSatisfy { $0.status == 404 && $0.error == "unknown_session" })

        let package = try #require(finalized.first { $0.status == 201 }?.json?["credential_package"]?.objectValue)
        let client = fixture.client()
        let state = try VaultClient.state(
            from: package, ledger: fixture.server.baseURL, deviceID: "race", deviceKey: Base64URL.encode(device.rawRepresentation),
            expectedUser: user, nats: nil)
        #expect(state.transactionKeys.count == 19 && !state.transactionKeys.contains { $0.keyID == keyID })
        try client.store.save(state)
        let login = try await client.authenticate(password: LedgerFixture.password)
        #expect(login.cekVersion == 2)
    }

    /// Eight logins of one device at once, all from the same saved state: each succeeds or is refused with 409
    /// (`concurrent_authentication` when another rotation won, `key_used` when two action tokens got the same key),
    /// never with a 5xx; the state kept is the newest package, and the device logs in with it afterwards.
    @Test(arguments: LedgerDatabases.all)
    func concurrentLoginsOfOneDeviceLeaveAUsableState(database: String) async throws {
        let fixture = try await LedgerFixture(database: database)
        defer { Task { await fixture.shutdown() } }
        let client = try await fixture.enrolled()
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do {
                        return "ok \(try await client.authenticate(password: LedgerFixture.password).cekVersion)"
                    } catch VaultError.ledger(let status, let error, _) {
                        return "\(status) \(error)"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        let successes = outcomes.filter { $0.hasPrefix("ok ") }
        #expect(!successes.isEmpty)
        #expect(outcomes.allSatisfy { $0.hasPrefix("ok ") || $0 == "409 concurrent_authentication" || $0 == "409 key_used" }, "\(outcomes)")
        let newest = successes.compactMap { Int($0.dropFirst(3)) }.max()
        #expect(try client.store.load().blob.cekVersion == newest)
        let after = try await client.authenticate(password: LedgerFixture.password)
        #expect(after.cekVersion == (newest ?? 0) + 1)
    }
}
