import Crypto
import Foundation
import LedgerProtocol
import SQLKit
import ServiceSupport
import TesseraCore
import TesseraJOSE

/// Authentication: a device-signed action request (answered with a single-use action token bound to one
/// transaction key, and the LAT proof), then `auth/execute`, which spends the token and the key, opens the password
/// hash and the blob, compares them in constant time, and on success rotates CEK and LAT in one transaction.
/// `vault_terminate` tokens go through the same password check at `POST /vault/terminate` (VaultLifecycleService).
struct AuthenticationService: Sendable {
    static let actionTypes: Set<String> = ["authenticate", VaultLifecycleService.terminateScope]
    let services: LedgerServices

    struct SignedRequest: Sendable {
        let signature: String?
        let timestamp: String?
        let nonce: String?
        let method: String
        let path: String
        let body: Data
    }

    func requestAction(_ body: LedgerBody, signed: SignedRequest) async throws(WireError) -> JSONObject {
        let request = try body.decode(ActionRequest.init(json:))
        let (userGUID, actionType, clientNonce) = (request.userGUID, request.actionType, request.clientNonce)
        guard Self.actionTypes.contains(actionType) else {
            throw WireError(.badRequest, "invalid_request", "action_type must be one of \(Self.actionTypes.sorted())")
        }
        let now = services.now
        let user = try await deviceSigned(userGUID: userGUID, signed, now: now)
        try checkLock(user, now: now)
        guard let key = try await services.store.unusedKeys(user: userGUID).first else {
            throw WireError(.conflict, "no_transaction_keys", "no unused transaction key is left")
        }
        // The LAT the device holds: the current one, or the one it last used while it has not used the current
        // package (its answer may have been lost, see KeptCredential).
        let latVersion = request.latVersion ?? user.lat_version
        let latSealedText: String?
        if latVersion == user.lat_version {
            latSealedText = user.lat_sealed
        } else if latVersion == user.lat_previous_version {
            latSealedText = user.lat_previous_sealed
        } else {
            throw WireError(.forbidden, "stale_credential", "the device's LAT is not one the ledger keeps")
        }
        guard let latSealed = Base64URL.bytes(latSealedText),
            let kdf = try? KDFParameters(json: (try? JSONValue.parse(Data(user.kdf.utf8)))?.objectValue)
        else { throw WireError.server }
        let lat = try services.keys.master.open(latSealed, purpose: "lat", id: userGUID)
        let token = Base64URL.encode(services.configuration.random.bytes(32))
        let jti = services.keys.identifier()
        let expiresAt = now.addingTimeInterval(services.configuration.actionTokenLifetime)
        try await services.store.insertActionToken(token: token, jti: jti, user: userGUID, scope: actionType, keyID: key.id, expiresAt: expiresAt)
        return [
            "action_token": .string(token), "jti": .string(jti), "use_key_id": .string(key.id), "kdf": .object(kdf.json),
            "lat_version": .integer(Int64(latVersion)),
            "lat_proof": .string(Base64URL.encode(LATProof.make(lat: lat, userGUID: userGUID, clientNonce: clientNonce, jti: jti))),
            "expires_at": .integer(Int64(expiresAt.timeIntervalSince1970)),
        ]
    }

    /// The enrolled user whose device key made `signed`, its nonce spent (a replay is refused).
    func deviceSigned(userGUID: String, _ signed: SignedRequest, now: Date) async throws(WireError) -> UserRow {
        guard let user = try await services.store.user(userGUID), user.enrolled else {
            throw WireError(.notFound, "unknown_user", "no enrolled user has this user_guid")
        }
        try checkSignature(signed, deviceKey: user.device_public_key, now: now)
        guard let nonce = signed.nonce,
            try await services.store.useDeviceNonce(user: userGUID, nonce: nonce, expiresAt: now.addingTimeInterval(2 * DeviceSignature.maxSkew), now: now)
        else { throw WireError(.conflict, "replayed_nonce", "this device nonce was already used") }
        return user
    }

    private func checkSignature(_ signed: SignedRequest, deviceKey: String, now: Date) throws(WireError) {
        let invalid = WireError(.unauthorized, "invalid_signature", "the device signature is missing, invalid or stale")
        guard let signature = signed.signature, let text = signed.timestamp, let timestamp = Int64(text),
            let nonce = signed.nonce, !nonce.isEmpty, nonce.utf8.count <= 128,
            abs(Double(timestamp) - now.timeIntervalSince1970) <= DeviceSignature.maxSkew,
            let raw = Base64URL.bytes(deviceKey), let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw),
            DeviceSignature.verify(
                signature: signature, publicKey: key, method: signed.method, path: signed.path, timestamp: timestamp,
                nonce: nonce, body: signed.body)
        else { throw invalid }
    }

    private func checkLock(_ user: UserRow, now: Date) throws(WireError) {
        guard user.locked_until <= now.timeIntervalSince1970 else {
            throw WireError(.tooManyRequests, "account_locked", "too many failed attempts: try again later")
        }
    }

    func execute(bearer: String?, _ body: LedgerBody) async throws(WireError) -> JSONObject {
        let now = services.now
        let token = try await consumeToken(bearer, scope: "authenticate", now: now)
        return try await rotate(try await verifyPassword(token: token, body, now: now), now: now)
    }

    /// Spends the action token (one atomic statement) and checks it was issued for `scope`.
    func consumeToken(_ bearer: String?, scope: String, now: Date) async throws(WireError) -> ActionTokenRow {
        guard let bearer, let token = try await services.store.consumeActionToken(bearer, now: now) else {
            throw WireError(.unauthorized, "invalid_token", "the action token is unknown, used or expired")
        }
        guard token.scope == scope else { throw WireError(.forbidden, "insufficient_scope", "the action token was issued for another action than \(scope)") }
        return token
    }

    /// A password proven with a spent action token and transaction key: what `rotate` needs.
    struct VerifiedPassword: Sendable {
        let user: UserRow
        let kept: KeptCredential
        let passwordHash: Data
        let kdf: KDFParameters
        let keyID: String
    }

    /// The order of the issue: key_id == use_key_id, key (spent atomically), the password hash opened with the LTK,
    /// the blob opened with the CEK of its version, constant-time comparison, lockout.
    func verifyPassword(token: ActionTokenRow, _ body: LedgerBody, now: Date) async throws(WireError) -> VerifiedPassword {
        let request = try body.decode(ExecuteRequest.init(json:))
        let (keyID, passwordBox, blobBox, cekVersion) = (request.keyID, request.password, request.blob, request.cekVersion)
        guard keyID == token.use_key_id else { throw WireError(.forbidden, "key_mismatch", "key_id is not the key this action token is bound to") }
        guard let user = try await services.store.user(token.user_guid) else { throw WireError(.notFound, "unknown_user", "the user is gone") }
        try checkLock(user, now: now)
        guard let ltkSealed = try await services.store.consumeKey(keyID, user: user.id) else {
            throw WireError(.conflict, "key_used", "this transaction key was already used")
        }
        let ltk = try services.keys.openTransactionKey(ltkSealed, keyID: keyID)
        let decryptionFailed = WireError(.forbidden, "decryption_failed", "a sealed box does not open with this key and binding")
        guard let presented = try? Seal.open(
            passwordBox, with: ltk, info: .transactionEncryption,
            aad: LedgerAAD.password(userGUID: user.id, transaction: token.jti, keyID: keyID))
        else { throw decryptionFailed }
        // The ledger keeps the CEK of the current version and of the version the device last used (KeptCredential):
        // a blob of any other version is stale.
        let stale = WireError(.forbidden, "stale_credential", "the blob was sealed to a CEK version the ledger no longer keeps")
        guard let cekSealed = try await services.store.cek(user: user.id, version: cekVersion) else { throw stale }
        let kept: KeptCredential
        if cekVersion == user.cek_version, let latSealed = user.lat_sealed {
            kept = KeptCredential(cekVersion: cekVersion, latVersion: user.lat_version, latSealed: latSealed)
        } else if let latVersion = user.lat_previous_version, let latSealed = user.lat_previous_sealed {
            kept = KeptCredential(cekVersion: cekVersion, latVersion: latVersion, latSealed: latSealed)
        } else {
            throw stale
        }
        let cek = try services.keys.openCEK(cekSealed, user: user.id, version: cekVersion)
        guard let plaintext = try? Seal.open(blobBox, with: cek, info: .credentialEncryption, aad: LedgerAAD.blob(userGUID: user.id, cekVersion: cekVersion)),
            let blob = try? JSONValue.parse(plaintext).objectValue, blob["user_guid"]?.stringValue == user.id,
            let stored = Base64URL.bytes(blob["password_hash"]?.stringValue),
            let kdf = try? KDFParameters(json: blob["kdf"]?.objectValue)
        else { throw decryptionFailed }
        guard ConstantTime.equal(stored, presented) else {
            try await services.store.recordFailure(
                user.id, limit: services.configuration.maxFailures, now: now, lockUntil: now.addingTimeInterval(services.configuration.lockout))
            throw WireError(.unauthorized, "invalid_credentials", "the password is wrong")
        }
        return VerifiedPassword(user: user, kept: kept, passwordHash: stored, kdf: kdf, keyID: keyID)
    }

    /// One transaction: new CEK and LAT versions (the presented ones kept, older ones dropped), transaction keys topped
    /// up, failures reset. The conditional update of the user row comes first: it decides which of two concurrent
    /// logins of one user rotates, and SQLite's deferred transaction takes its write lock before reading anything (a
    /// transaction that reads, then writes after another connection committed, fails with SQLITE_BUSY_SNAPSHOT).
    func rotate(_ verified: VerifiedPassword, now: Date) async throws(WireError) -> JSONObject {
        let (user, kept, passwordHash, kdf, usedKeyID) = (verified.user, verified.kept, verified.passwordHash, verified.kdf, verified.keyID)
        let services = self.services
        let configuration = services.configuration
        return try await services.store.db.transaction { sql in
            var package = try await services.issuer.issue(
                user: user.id, passwordHash: passwordHash, kdf: kdf, current: (user.cek_version, user.lat_version), keeping: kept,
                credentialID: user.credential_id ?? services.keys.identifier(), sql: sql)
            var keys = try await LedgerStore(db: sql).unusedKeys(user: user.id)
            if keys.count <= configuration.replenishThreshold {
                keys += try await services.keys.addTransactionKeys(configuration.replenishCount, user: user.id, now: now, sql: sql)
            }
            package["transaction_keys"] = LedgerKeys.keysJSON(keys)
            return ["credential_package": .object(package), "transaction_keys": LedgerKeys.keysJSON(keys), "used_key_id": .string(usedKeyID)]
        }
    }
}
