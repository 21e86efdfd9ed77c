import Crypto
import Foundation
import LedgerProtocol
import TesseraCore
import TesseraJOSE
import TesseraHTTP

/// Enrollment and authentication against a Ledger (`/api/v1`). Argon2id runs here, on the device; the ledger only
/// ever sees the hash sealed to a single-use transaction key, bound by AAD to the user and the transaction.
public struct VaultClient: Sendable {
    /// Below this many unused transaction keys the result carries a warning (the ledger tops up at ≤ 10).
    public static let lowKeyWarning = 5

    /// Where the enrolled state (`vault.json`) lives.
    public let store: VaultStateStore
    /// How the ledger is reached (injected, `TesseraHTTP`).
    public let http: any HTTPClient
    /// The instant device signatures are timestamped with (decision 5).
    public let clock: any TesseraClock
    /// The source of the device key, nonces and sealing keys (decision 5).
    public let random: any RandomSource

    /// A client over the device's state store and an HTTP client, with the system clock and randomness by default.
    public init(store: VaultStateStore, http: any HTTPClient, clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()) {
        self.store = store
        self.http = http
        self.clock = clock
        self.random = random
    }

    /// What ``VaultClient/enroll(ledger:invitation:password:deviceID:deviceType:)`` reports.
    public struct Enrolled: Sendable {
        /// The user's identifier at the ledger (a UUID), which names the user's vault too.
        public let userGUID: String
        /// How many unused transaction keys the device holds.
        public let transactionKeys: Int
        /// The Argon2id parameters the ledger asked for (RFC 9106).
        public let kdf: KDFParameters
        /// The NATS bootstrap credentials (`bootstrap_creds` among them), when the ledger has a bus: what
        /// ``VaultConnection/bootstrap(credentials:device:timeout:)`` needs.
        public let nats: [String: String]?
        /// The vault's Ed25519 identity public key (raw 32 bytes), when the ledger provisioned a vault.
        public let vaultIdentityPublicKey: Data?
    }

    /// start → Argon2id → set-password → finalize; the state is saved only when all three succeeded.
    public func enroll(ledger: String, invitation: String, password: String, deviceID: String, deviceType: String) async throws(VaultError) -> Enrolled {
        let base = ledger.hasSuffix("/") ? String(ledger.dropLast()) : ledger
        guard let deviceKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: random.bytes(32)) else { throw .crypto("no device key") }
        let started = try await post(base, "/api/v1/enroll/start", [
            "invitation_code": .string(invitation), "device_id": .string(deviceID), "device_type": .string(deviceType),
            "device_public_key": .string(Base64URL.encode(deviceKey.publicKey.rawRepresentation)),
        ], expect: 201)
        guard let session = started["enrollment_session"]?.stringValue, let user = started["user_guid"]?.stringValue,
            let keyID = started["password_key_id"]?.stringValue, let keys = Self.keys(started["transaction_keys"]),
            let utk = keys.first(where: { $0.keyID == keyID })
        else { throw .invalidResponse("enroll/start") }
        let kdf = try Self.kdf(started["kdf"])
        let box = try sealPassword(password, kdf: kdf, to: utk, aad: LedgerAAD.password(userGUID: user, transaction: session, keyID: keyID))
        _ = try await post(base, "/api/v1/enroll/set-password", [
            "enrollment_session": .string(session), "user_guid": .string(user), "key_id": .string(keyID), "password": .object(box.json),
        ], expect: 204)
        let finalized = try await post(base, "/api/v1/enroll/finalize", ["enrollment_session": .string(session), "user_guid": .string(user)], expect: 201)
        var nats: [String: String]?
        if let object = finalized["nats"]?.objectValue {
            nats = [:]
            for (name, value) in object { nats?[name] = value.stringValue }
        }
        let vaultKey = try Self.vaultIdentityKey(finalized["vault"])
        let state = try Self.state(
            from: finalized["credential_package"]?.objectValue, ledger: base, deviceID: deviceID,
            deviceKey: Base64URL.encode(deviceKey.rawRepresentation), expectedUser: user, nats: nats,
            vaultIdentityPublicKey: vaultKey.map(Base64URL.encode))
        try store.save(state)
        return Enrolled(userGUID: user, transactionKeys: state.transactionKeys.count, kdf: kdf, nats: nats, vaultIdentityPublicKey: vaultKey)
    }

    /// What ``VaultClient/authenticate(password:)`` reports.
    public struct Authenticated: Sendable {
        /// The transaction key the password hash was sealed to; the ledger never accepts it again.
        public let usedKeyID: String
        /// How many unused transaction keys are left.
        public let transactionKeys: Int
        /// The version of the ledger's CEK the new credential blob is sealed to (rotated on each success).
        public let cekVersion: Int
        /// The version of the new LAT (rotated on each success).
        public let latVersion: Int
        /// Set when few transaction keys are left.
        public let warning: String?
    }

    /// action/request (device-signed) → LAT proof checked in constant time (a mismatch stops here) → Argon2id →
    /// auth/execute → the new state replaces the old one atomically.
    public func authenticate(password: String) async throws(VaultError) -> Authenticated {
        let (_, next, keyID) = try await passwordAction("authenticate", path: "/api/v1/auth/execute", password: password)
        let remaining = next.transactionKeys.count
        return Authenticated(
            usedKeyID: keyID, transactionKeys: remaining, cekVersion: next.blob.cekVersion, latVersion: next.latVersion,
            warning: remaining < Self.lowKeyWarning ? "only \(remaining) transaction keys are left" : nil)
    }

    /// The password flow for `actionType`: action/request, LAT proof, the execute body posted to `path` with the
    /// action token; the rotated credentials in the answer are saved. Returns the answer, the new state and the key.
    func passwordAction(_ actionType: String, path executePath: String, password: String) async throws(VaultError) -> (JSONObject, VaultState, String) {
        let state = try store.load()
        guard let deviceKeyBytes = Base64URL.bytes(state.devicePrivateKey),
            let deviceKey = try? Curve25519.Signing.PrivateKey(rawRepresentation: deviceKeyBytes),
            let lat = Base64URL.bytes(state.latToken)
        else { throw .storage("the device key or LAT is damaged") }
        let clientNonce = Base64URL.encode(random.bytes(16))
        // lat_version names the LAT this device holds, so the ledger proves that one (the previous package stays
        // usable while this device has not used the newer one: its answer may never have arrived).
        let bytes = ActionRequest(userGUID: state.userGUID, actionType: actionType, clientNonce: clientNonce, latVersion: state.latVersion)
            .json.serialized()
        let path = "/api/v1/action/request"
        let headers: [(name: String, value: String)]
        do {
            headers = try DeviceSignature.headers(
                key: deviceKey, method: "POST", path: path, timestamp: Int64(clock.now().timeIntervalSince1970),
                nonce: Base64URL.encode(random.bytes(16)), body: bytes)
        } catch {
            throw .crypto("the device key cannot sign")
        }
        let action = try await send(state.ledger, path, body: bytes, headers: headers, expect: 200)
        guard let token = action["action_token"]?.stringValue, let jti = action["jti"]?.stringValue,
            let keyID = action["use_key_id"]?.stringValue, let proof = Base64URL.bytes(action["lat_proof"]?.stringValue)
        else { throw .invalidResponse("action/request") }
        guard LATProof.check(proof, lat: lat, userGUID: state.userGUID, clientNonce: clientNonce, jti: jti) else { throw .latMismatch }
        let kdf = try Self.kdf(action["kdf"])
        guard let utk = state.transactionKeys.first(where: { $0.keyID == keyID }) else { throw .noTransactionKeys }
        let box = try sealPassword(password, kdf: kdf, to: utk, aad: LedgerAAD.password(userGUID: state.userGUID, transaction: jti, keyID: keyID))
        let blob: JSONObject = [
            "ciphertext": .string(state.blob.ciphertext), "nonce": .string(state.blob.nonce), "epk": .string(state.blob.epk),
            "cek_version": .integer(Int64(state.blob.cekVersion)),
        ]
        let executed = try await send(
            state.ledger, executePath,
            body: (["blob": .object(blob), "password": .object(box.json), "key_id": .string(keyID)] as JSONObject).serialized(),
            headers: [("Authorization", "Bearer \(token)")], expect: 200)
        guard executed["used_key_id"]?.stringValue == keyID else { throw .invalidResponse("\(executePath): used_key_id") }
        let next = try Self.state(
            from: executed["credential_package"]?.objectValue, ledger: state.ledger, deviceID: state.deviceID,
            deviceKey: state.devicePrivateKey, expectedUser: state.userGUID, nats: state.nats,
            vaultIdentityPublicKey: state.vaultIdentityPublicKey)
        // Two logins from one saved state can both succeed (the ledger accepts the version this device last used):
        // the newest package is the one the ledger keeps, so an older one never replaces it.
        let newerSaved = (try? store.load()).map { $0.userGUID == next.userGUID && $0.blob.cekVersion > next.blob.cekVersion } ?? false
        if !newerSaved { try store.save(next) }
        return (executed, next, keyID)
    }

    // MARK: pieces

    private func sealPassword(_ password: String, kdf: KDFParameters, to utk: VaultState.TransactionKey, aad: Data) throws(VaultError) -> SealedBox {
        guard let raw = Base64URL.bytes(utk.publicKey), let key = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: raw) else {
            throw .invalidResponse("a transaction key is not an X25519 public key")
        }
        let hash: Data
        do {
            hash = try kdf.hash(password: password)
        } catch {
            throw .crypto("Argon2id failed")
        }
        do {
            return try Seal.seal(to: key, info: .transactionEncryption, aad: aad, plaintext: hash, random: random)
        } catch {
            throw .crypto("sealing the password hash failed")
        }
    }

    static func kdf(_ value: JSONValue?) throws(VaultError) -> KDFParameters {
        do {
            return try KDFParameters(json: value?.objectValue)
        } catch {
            throw .invalidResponse(error.description)
        }
    }

    static func keys(_ value: JSONValue?) -> [VaultState.TransactionKey]? {
        guard let array = value?.arrayValue else { return nil }
        var keys: [VaultState.TransactionKey] = []
        for item in array {
            guard let id = item["key_id"]?.stringValue, let key = item["public_key"]?.stringValue else { return nil }
            keys.append(.init(keyID: id, publicKey: key))
        }
        return keys
    }

    /// The `vault` member of finalize: its `identity_public_key` must be an Ed25519 public key (nil: no vault).
    static func vaultIdentityKey(_ value: JSONValue?) throws(VaultError) -> Data? {
        guard let value else { return nil }
        guard let key = Base64URL.bytes(value["identity_public_key"]?.stringValue),
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key)) != nil
        else { throw .invalidResponse("vault.identity_public_key is not an Ed25519 public key") }
        return key
    }

    static func state(
        from package: JSONObject?, ledger: String, deviceID: String, deviceKey: String, expectedUser: String, nats: [String: String]?,
        vaultIdentityPublicKey: String? = nil
    ) throws(VaultError) -> VaultState {
        guard let package, package["user_guid"]?.stringValue == expectedUser,
            let credential = package["credential_id"]?.stringValue, let blob = package["blob"]?.objectValue,
            let ciphertext = blob["ciphertext"]?.stringValue, let nonce = blob["nonce"]?.stringValue, let epk = blob["epk"]?.stringValue,
            let version = blob["cek_version"]?.int64Value, let lat = package["lat"]?.objectValue,
            let latID = lat["lat_id"]?.stringValue, let token = lat["token"]?.stringValue, let latVersion = lat["version"]?.int64Value,
            let keys = keys(package["transaction_keys"])
        else { throw .invalidResponse("credential_package") }
        return VaultState(
            ledger: ledger, userGUID: expectedUser, credentialID: credential, deviceID: deviceID, devicePrivateKey: deviceKey,
            blob: .init(ciphertext: ciphertext, nonce: nonce, epk: epk, cekVersion: Int(version)), latID: latID, latToken: token,
            latVersion: Int(latVersion), transactionKeys: keys, nats: nats, vaultIdentityPublicKey: vaultIdentityPublicKey)
    }

    private func post(_ base: String, _ path: String, _ body: JSONObject, expect: Int) async throws(VaultError) -> JSONObject {
        try await send(base, path, body: body.serialized(), headers: [], expect: expect)
    }

    func send(
        _ base: String, _ path: String, method: HTTPRequest.Method = .post, body: Data, headers: [(name: String, value: String)],
        expect: Int
    ) async throws(VaultError) -> JSONObject {
        guard let url = URL(string: base + path) else { throw .invalidResponse("the ledger URL is not valid") }
        let response: HTTPResponse
        do {
            response = try await http.send(HTTPRequest(
                method: method, url: url, headers: (method == .post ? [("Content-Type", "application/json")] : []) + headers,
                body: method == .post ? body : nil))
        } catch {
            throw .ledger(status: 0, error: "unreachable", description: "\(error)")
        }
        let json = (try? JSONValue.parse(response.body))?.objectValue
        guard response.status == expect else {
            throw .ledger(
                status: response.status, error: json?["error"]?.stringValue ?? "unknown",
                description: json?["error_description"]?.stringValue ?? "")
        }
        return json ?? [:]
    }
}
