import Crypto
import Foundation
import LedgerProtocol
import SQLKit
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// Enrollment: start (invitation → user, salt, transaction keys), set-password (the password hash sealed to a
/// transaction key, opened at once, fail closed), finalize (credential package, LAT, NATS identity, vault).
struct EnrollmentService: Sendable {
    let services: LedgerServices

    func start(_ body: LedgerBody) async throws(WireError) -> JSONObject {
        let request = try body.decode(EnrollStartRequest.init(json:))
        let (code, deviceID, deviceType, deviceKey) = (request.invitationCode, request.deviceID, request.deviceType, request.devicePublicKey)
        let now = services.now
        guard try await services.store.consumeInvitation(code: code, now: now) else {
            throw WireError(.forbidden, "invalid_invitation", "the invitation code is unknown, used or expired")
        }
        let configuration = services.configuration
        let user = UUID().uuidString.lowercased()
        let session = Base64URL.encode(configuration.random.bytes(32))
        let kdf = KDFParameters(
            salt: configuration.random.bytes(16), memoryKiB: configuration.kdfMemoryKiB, iterations: configuration.kdfIterations,
            parallelism: configuration.kdfParallelism)
        let keys = services.keys
        let rows = try await services.store.db.transaction { sql in
            try await sql.run { db in
                try await db.insert(into: "lg_users")
                    .columns("id", "device_id", "device_type", "device_public_key", "kdf", "enrolled", "cek_version", "lat_version",
                             "failed_attempts", "locked_until", "created_at")
                    .values(SQLBind(user), SQLBind(deviceID), SQLBind(deviceType), SQLBind(Base64URL.encode(deviceKey)),
                            SQLBind(JSONValue.object(kdf.json).serializedString), SQLBind(false), SQLBind(0), SQLBind(0),
                            SQLBind(0), SQLBind(0.0), SQLBind(now.timeIntervalSince1970)).run()
            }
            let rows = try await keys.addTransactionKeys(configuration.initialTransactionKeys, user: user, now: now, sql: sql)
            guard let first = rows.first else { throw WireError.server }
            try await sql.run { db in
                try await db.insert(into: "lg_enrollments").columns("id", "user_guid", "password_key_id", "expires_at")
                    .values(SQLBind(LedgerStore.hashID(session)), SQLBind(user), SQLBind(first.id),
                            SQLBind(now.addingTimeInterval(configuration.enrollmentLifetime).timeIntervalSince1970)).run()
            }
            return rows
        }
        return [
            "enrollment_session": .string(session), "user_guid": .string(user), "transaction_keys": LedgerKeys.keysJSON(rows),
            "password_key_id": .string(rows.first?.id ?? ""), "kdf": .object(kdf.json),
        ]
    }

    /// The key is spent by one conditional UPDATE before anything is decrypted, so of concurrent uses one proceeds;
    /// a box that does not open leaves it spent (fail closed) and the enrollment has to start again.
    func setPassword(_ body: LedgerBody) async throws(WireError) {
        let request = try body.decode(SetPasswordRequest.init(json:))
        let (session, user, keyID, box) = (request.enrollmentSession, request.userGUID, request.keyID, request.password)
        let now = services.now
        guard let enrollment = try await services.store.enrollment(session: session, now: now), enrollment.user_guid == user else {
            throw WireError(.notFound, "unknown_session", "the enrollment session is unknown or expired")
        }
        guard keyID == enrollment.password_key_id else {
            throw WireError(.forbidden, "key_mismatch", "key_id is not the enrollment's password_key_id")
        }
        guard let sealed = try await services.store.consumeKey(keyID, user: user) else {
            throw WireError(.conflict, "key_used", "this transaction key was already used")
        }
        let key = try services.keys.openTransactionKey(sealed, keyID: keyID)
        let hash: Data
        do {
            hash = try Seal.open(
                box, with: key, info: .transactionEncryption,
                aad: LedgerAAD.password(userGUID: user, transaction: session, keyID: keyID))
        } catch {
            throw WireError(.forbidden, "decryption_failed", "the password box does not open with this key and binding")
        }
        guard (16...64).contains(hash.count) else { throw WireError(.badRequest, "invalid_request", "the password hash has an impossible length") }
        let sealedHash = Base64URL.encode(try services.keys.master.seal(hash, purpose: "enroll-hash", id: LedgerStore.hashID(session)))
        try await services.store.setPasswordHash(session: session, sealed: sealedHash)
    }

    func finalize(_ body: LedgerBody) async throws(WireError) -> JSONObject {
        let request = try body.decode(FinalizeRequest.init(json:))
        let (session, user) = (request.enrollmentSession, request.userGUID)
        let now = services.now
        guard let pending = try await services.store.enrollment(session: session, now: now), pending.user_guid == user else {
            throw WireError(.notFound, "unknown_session", "the enrollment session is unknown or expired")
        }
        guard pending.password_hash_sealed != nil else {
            throw WireError(.conflict, "password_not_set", "set-password must succeed before finalize")
        }
        guard let row = try await services.store.user(user), let kdf = try? KDFParameters(json: (try? JSONValue.parse(Data(row.kdf.utf8)))?.objectValue)
        else { throw WireError.server }
        // The NATS identity first: provisioning is idempotent per user, so a failure here leaves the enrollment
        // open for a retry instead of consuming it.
        var nats: [String: String]?
        if let provisioner = services.configuration.nats {
            do {
                nats = try await provisioner.provision(userGUID: user, now: now)
            } catch {
                throw WireError(.serviceUnavailable, "temporarily_unavailable", "the NATS identity could not be created")
            }
        }
        // Then the vault, which lives in that account: idempotent too, so its failure also leaves the enrollment open.
        var vault: JSONObject?
        if let backend = services.configuration.vault {
            vault = try await VaultLifecycleService.provision(backend, userGUID: user, now: now)
        }
        let services = self.services
        let package = try await services.store.db.transaction { sql in
            // Taking the enrollment inside the transaction makes finalize single use.
            guard let enrollment = try await LedgerStore(db: sql).takeEnrollment(session: session, now: now),
                let sealedHash = Base64URL.bytes(enrollment.password_hash_sealed)
            else { throw WireError(.notFound, "unknown_session", "the enrollment session is unknown or expired") }
            let hash = try services.keys.master.open(sealedHash, purpose: "enroll-hash", id: enrollment.id)
            var package = try await services.issuer.issue(
                user: user, passwordHash: hash, kdf: kdf, current: (row.cek_version, row.lat_version), keeping: nil,
                credentialID: services.keys.identifier(), sql: sql)
            package["transaction_keys"] = LedgerKeys.keysJSON(try await LedgerStore(db: sql).unusedKeys(user: user))
            return package
        }
        var answer: JSONObject = ["credential_package": .object(package)]
        if let nats {
            var object: JSONObject = [:]
            for (name, value) in nats.sorted(by: { $0.key < $1.key }) { object[name] = .string(value) }
            answer["nats"] = .object(object)
        }
        if let vault { answer["vault"] = .object(vault) }
        return answer
    }
}
