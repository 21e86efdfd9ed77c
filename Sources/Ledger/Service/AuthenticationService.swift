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
struct AuthenticationService: Sendable {
    static let actionTypes: Set<String> = ["authenticate"]
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
        let userGUID = try body.string("user_guid", max: 64)
        let actionType = try body.string("action_type", max: 64)
        let clientNonce = try body.string("client_nonce", max: 128)
        guard Self.actionTypes.contains(actionType) else {
            throw WireError(.badRequest, "invalid_request", "action_type must be one of \(Self.actionTypes.sorted())")
        }
        let now = services.now
        guard let user = try await services.store.user(userGUID), user.enrolled else {
            throw WireError(.notFound, "unknown_user", "no enrolled user has this user_guid")
        }
        try checkSignature(signed, deviceKey: user.device_public_key, now: now)
        guard let nonce = signed.nonce,
            try await services.store.useDeviceNonce(user: userGUID, nonce: nonce, expiresAt: now.addingTimeInterval(2 * DeviceSignature.maxSkew), now: now)
        else { throw WireError(.conflict, "replayed_nonce", "this device nonce was already used") }
        try checkLock(user, now: now)
        guard let key = try await services.store.unusedKeys(user: userGUID).first else {
            throw WireError(.conflict, "no_transaction_keys", "no unused transaction key is left")
        }
        guard let latSealed = Base64URL.bytes(user.lat_sealed),
            let kdf = try? KDFParameters(json: (try? JSONValue.parse(Data(user.kdf.utf8)))?.objectValue)
        else { throw WireError.server }
        let lat = try services.keys.master.open(latSealed, purpose: "lat", id: userGUID)
        let token = Base64URL.encode(services.configuration.random.bytes(32))
        let jti = services.keys.identifier()
        let expiresAt = now.addingTimeInterval(services.configuration.actionTokenLifetime)
        try await services.store.insertActionToken(token: token, jti: jti, user: userGUID, scope: actionType, keyID: key.id, expiresAt: expiresAt)
        return [
            "action_token": .string(token), "jti": .string(jti), "use_key_id": .string(key.id), "kdf": .object(kdf.json),
            "lat_version": .integer(Int64(user.lat_version)),
            "lat_proof": .string(Base64URL.encode(LATProof.make(lat: lat, userGUID: userGUID, clientNonce: clientNonce, jti: jti))),
            "expires_at": .integer(Int64(expiresAt.timeIntervalSince1970)),
        ]
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

    /// The order of the issue: token (spent atomically), key_id == use_key_id, key (spent atomically), the password
    /// hash opened with the LTK, the blob opened with the CEK of its version, constant-time comparison, lockout.
    func execute(bearer: String?, _ body: LedgerBody) async throws(WireError) -> JSONObject {
        let now = services.now
        guard let bearer, let token = try await services.store.consumeActionToken(bearer, now: now) else {
            throw WireError(.unauthorized, "invalid_token", "the action token is unknown, used or expired")
        }
        guard token.scope == "authenticate" else { throw WireError(.forbidden, "insufficient_scope", "the action token is not for authentication") }
        let keyID = try body.string("key_id", max: 64)
        let passwordBox = try body.sealed("password")
        let blobBox = try body.sealed("blob")
        guard let cekVersion = body.json["blob"]?["cek_version"]?.int64Value.map(Int.init) else {
            throw WireError(.badRequest, "invalid_request", "blob.cek_version must be an integer")
        }
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
        guard cekVersion == user.cek_version, let cekSealed = try await services.store.cek(user: user.id, version: cekVersion) else {
            throw WireError(.forbidden, "stale_credential", "the blob was sealed to a CEK version that is no longer current")
        }
        let cek = try services.keys.openCEK(cekSealed, user: user.id, version: cekVersion)
        guard let plaintext = try? Seal.open(blobBox, with: cek, info: .credentialEncryption, aad: LedgerAAD.blob(userGUID: user.id, cekVersion: cekVersion)),
            let blob = try? JSONValue.parse(plaintext).objectValue, blob["user_guid"]?.stringValue == user.id,
            let stored = Base64URL.bytes(blob["password_hash"]?.stringValue),
            let kdf = try? KDFParameters(json: blob["kdf"]?.objectValue)
        else { throw decryptionFailed }
        guard ConstantTime.equal(stored, presented) else {
            try await services.store.recordFailure(
                user.id, limit: services.configuration.maxFailures, lockUntil: now.addingTimeInterval(services.configuration.lockout))
            throw WireError(.unauthorized, "invalid_credentials", "the password is wrong")
        }
        return try await rotate(user: user, passwordHash: stored, kdf: kdf, usedKeyID: keyID, now: now)
    }

    /// One transaction: new CEK and LAT versions, transaction keys topped up, failures reset.
    private func rotate(user: UserRow, passwordHash: Data, kdf: KDFParameters, usedKeyID: String, now: Date) async throws(WireError) -> JSONObject {
        let services = self.services
        let configuration = services.configuration
        return try await services.store.db.transaction { sql in
            let store = LedgerStore(db: sql)
            var keys = try await store.unusedKeys(user: user.id)
            if keys.count <= configuration.replenishThreshold {
                keys += try await services.keys.addTransactionKeys(configuration.replenishCount, user: user.id, now: now, sql: sql)
            }
            let package = try await services.issuer.issue(
                user: user.id, passwordHash: passwordHash, kdf: kdf, cekVersion: user.cek_version + 1,
                latVersion: user.lat_version + 1, credentialID: user.credential_id ?? services.keys.identifier(),
                transactionKeys: keys, sql: sql)
            return [
                "credential_package": .object(package), "transaction_keys": LedgerKeys.keysJSON(keys),
                "used_key_id": .string(usedKeyID),
            ]
        }
    }
}
