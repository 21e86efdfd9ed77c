import Crypto
import Foundation
import LedgerProtocol
import TesseraJOSE
import TesseraHTTP
import TesseraCore

/// A vault as the ledger's lifecycle endpoints show it.
public struct VaultLifecycleStatus: Sendable, Equatable {
    /// "provisioning", "running", "stopping", "stopped", "terminated".
    public let state: String
    /// "running", "stopped", "terminated".
    public let desiredState: String
    /// 0…100 while provisioning.
    public let progress: Int
    /// The vault host holding its lease, if any.
    public let host: String?
    /// When the ledger last changed the vault's state.
    public let updatedAt: Date
    /// Ed25519, raw 32 bytes.
    public let identityPublicKey: Data

    /// `{state, desired_state, progress, host?, updated_at, identity_public_key}`.
    init(json: JSONObject) throws(VaultError) {
        guard let state = json["state"]?.stringValue, let desired = json["desired_state"]?.stringValue,
            let progress = json["progress"]?.int64Value, (0...100).contains(progress),
            let updated = json["updated_at"]?.int64Value,
            let key = Base64URL.bytes(json["identity_public_key"]?.stringValue), key.count == 32
        else { throw .invalidResponse("vault status") }
        let host = json["host"]
        guard host == nil || host?.stringValue != nil else { throw .invalidResponse("vault status: host") }
        self.state = state
        desiredState = desired
        self.progress = Int(progress)
        self.host = host?.stringValue
        updatedAt = Date(timeIntervalSince1970: TimeInterval(updated))
        identityPublicKey = key
    }
}

/// The vault lifecycle through the ledger (`/vault/*`). Status, start and stop are device-signed; terminate deletes
/// the vault's data, so it takes the password (a `vault_terminate` action token, then the same proof as a login,
/// which also rotates the saved credentials).
extension VaultClient {
    static let userHeader = "X-User-GUID"

    /// `GET /vault/health` of `ledger` (unauthenticated): true when its vault hosts answer.
    public func vaultHealth(ledger: String) async throws(VaultError) -> Bool {
        let base = ledger.hasSuffix("/") ? String(ledger.dropLast()) : ledger
        do throws(VaultError) {
            return try await send(base, "/vault/health", method: .get, body: Data(), headers: [], expect: 200)["status"]?.stringValue == "ok"
        } catch {
            if case .ledger(status: 503, _, _) = error { return false }
            throw error
        }
    }

    /// `GET /vault/status`, device-signed; the identity key shown must be the one pinned at enrollment.
    public func status() async throws(VaultError) -> VaultLifecycleStatus { try await signed(.get, "/vault/status") }

    /// `POST /vault/start`, device-signed: asks the ledger to run the vault (it is provisioned at finalize).
    public func start() async throws(VaultError) -> VaultLifecycleStatus { try await signed(.post, "/vault/start") }

    /// `POST /vault/stop`, device-signed: the vault's data stays, its host lets it go.
    public func stop() async throws(VaultError) -> VaultLifecycleStatus { try await signed(.post, "/vault/stop") }

    /// Terminates the vault: its data is deleted and its NATS identity revoked. Idempotent.
    public func terminate(password: String) async throws(VaultError) -> VaultLifecycleStatus {
        let (answer, state, _) = try await passwordAction("vault_terminate", path: "/vault/terminate", password: password)
        return try checked(VaultLifecycleStatus(json: answer), state: state)
    }

    /// A device-signed call with an empty body, the user named in `X-User-GUID`.
    private func signed(_ method: HTTPRequest.Method, _ path: String) async throws(VaultError) -> VaultLifecycleStatus {
        let state = try store.load()
        guard let raw = Base64URL.bytes(state.devicePrivateKey), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw) else {
            throw .storage("the device key is damaged")
        }
        let headers: [(name: String, value: String)]
        do {
            headers = try DeviceSignature.headers(
                key: key, method: method.rawValue, path: path, timestamp: Int64(clock.now().timeIntervalSince1970),
                nonce: Base64URL.encode(random.bytes(16)), body: Data())
        } catch {
            throw .crypto("the device key cannot sign")
        }
        let answer = try await send(state.ledger, path, method: method, body: Data(), headers: headers + [(Self.userHeader, state.userGUID)], expect: 200)
        return try checked(VaultLifecycleStatus(json: answer), state: state)
    }

    /// The identity key the ledger shows must be the one it gave at enrollment (when this device has one): the app's
    /// check of the vault's bootstrap reply rests on it.
    private func checked(_ status: VaultLifecycleStatus, state: VaultState) throws(VaultError) -> VaultLifecycleStatus {
        if let pinned = state.vaultIdentityPublicKey, Base64URL.bytes(pinned) != status.identityPublicKey {
            throw .invalidResponse("the vault's identity key is not the one received at enrollment")
        }
        return status
    }
}
