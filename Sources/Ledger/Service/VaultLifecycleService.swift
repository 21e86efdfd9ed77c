import Crypto
import Foundation
import LedgerProtocol
import ServiceSupport
import TesseraJOSE
import TesseraCore

/// The vault lifecycle (issue 13): provisioning at finalize, and `/vault/{health, status, start, stop, terminate}`.
///
/// Authentication: status, start and stop are device-signed like `action/request` (the user named in `X-User-GUID`,
/// the signature checked with that user's device key, the nonce single use): they change nothing that cannot be
/// undone. Terminate deletes the vault's data, so it takes the strongest proof the ledger has: the password, through
/// a `vault_terminate` action token (device-signed `action/request`, LAT proof) and the auth/execute body
/// (single-use transaction key, blob, Argon2id hash compared in constant time, lockout); the credentials rotate as at
/// any successful password authentication.
struct VaultLifecycleService: Sendable {
    /// The action type (and token scope) that allows `POST /vault/terminate`.
    static let terminateScope = "vault_terminate"
    /// Names the user of a device-signed vault call (the signature is checked with that user's device key).
    static let userHeader = "X-User-GUID"

    let services: LedgerServices
    let authentication: AuthenticationService

    static let notFound = WireError(.notFound, "vault_not_found", "this user has no vault")
    static let terminated = WireError(.conflict, "vault_terminated", "this vault was terminated and cannot run again")
    static let unavailable = WireError(.serviceUnavailable, "temporarily_unavailable", "the vault hosts cannot be reached: try again later")

    private func backend() throws(WireError) -> any LedgerVaultLifecycle {
        guard let backend = services.configuration.vault else {
            throw WireError(.serviceUnavailable, "vault_unavailable", "this ledger has no vault hosts")
        }
        return backend
    }

    /// `GET /vault/health`: unauthenticated liveness of the backend.
    func health() async throws(WireError) -> JSONObject {
        let backend = try backend()
        try await Self.call { try await backend.health() }
        return ["status": "ok"]
    }

    func status(userGUID: String?, signed: AuthenticationService.SignedRequest) async throws(WireError) -> JSONObject {
        let backend = try backend()
        let user = try await signedUser(userGUID, signed)
        guard let status = try await Self.call({ try await backend.status(userGUID: user) }) else { throw Self.notFound }
        return Self.json(status)
    }

    func start(userGUID: String?, signed: AuthenticationService.SignedRequest) async throws(WireError) -> JSONObject {
        try await change(userGUID: userGUID, signed: signed) { backend, user, now in try await backend.start(userGUID: user, now: now) }
    }

    func stop(userGUID: String?, signed: AuthenticationService.SignedRequest) async throws(WireError) -> JSONObject {
        try await change(userGUID: userGUID, signed: signed) { backend, user, now in try await backend.stop(userGUID: user, now: now) }
    }

    /// Start or stop: refused with 404 without a vault and 409 once it is terminated (checked before, and on the
    /// answer, for a terminate that ran in between).
    private func change(
        userGUID: String?, signed: AuthenticationService.SignedRequest,
        _ operation: (any LedgerVaultLifecycle, String, Date) async throws -> LedgerVaultStatus
    ) async throws(WireError) -> JSONObject {
        let backend = try backend()
        let user = try await signedUser(userGUID, signed)
        guard let current = try await Self.call({ try await backend.status(userGUID: user) }) else { throw Self.notFound }
        guard !Self.isTerminated(current) else { throw Self.terminated }
        let now = services.now
        let status = try await Self.call { try await operation(backend, user, now) }
        guard !Self.isTerminated(status) else { throw Self.terminated }
        return Self.json(status)
    }

    /// `POST /vault/terminate` (`Authorization: Bearer` a `vault_terminate` action token, the auth/execute body).
    /// The vault is checked before the password, so a missing vault spends only the token; the password is checked
    /// before anything is deleted. Idempotent: terminating a terminated vault answers its status again.
    func terminate(bearer: String?, _ body: LedgerBody) async throws(WireError) -> JSONObject {
        let backend = try backend()
        let now = services.now
        let token = try await authentication.consumeToken(bearer, scope: Self.terminateScope, now: now)
        guard try await Self.call({ try await backend.status(userGUID: token.user_guid) }) != nil else { throw Self.notFound }
        let verified = try await authentication.verifyPassword(token: token, body, now: now)
        let status = try await Self.call { try await backend.terminate(userGUID: verified.user.id, now: now) }
        // Like auth/execute: a successful password use rotates the credentials (the presented version stays valid
        // until the device uses the new one, so a lost answer locks nobody out).
        var answer = try await authentication.rotate(verified, now: now)
        for (name, value) in Self.json(status) { answer[name] = value }
        return answer
    }

    /// At finalize: the vault record and identity key, and its first status (the `vault` member of the answer).
    /// Any failure is one clean 503: provisioning is idempotent per user, so finalize can be retried.
    static func provision(_ backend: any LedgerVaultLifecycle, userGUID: String, now: Date) async throws(WireError) -> JSONObject {
        let failed = WireError(.serviceUnavailable, "temporarily_unavailable", "the vault could not be provisioned")
        guard let key = try? await backend.provision(userGUID: userGUID, now: now),
            (try? Curve25519.Signing.PublicKey(rawRepresentation: key)) != nil,
            let status = try? await backend.status(userGUID: userGUID), status.identityPublicKey == key
        else { throw failed }
        return ["identity_public_key": .string(Base64URL.encode(key)), "status": .object(json(status))]
    }

    private func signedUser(_ userGUID: String?, _ signed: AuthenticationService.SignedRequest) async throws(WireError) -> String {
        guard let userGUID, !userGUID.isEmpty, userGUID.utf8.count <= 64 else {
            throw WireError(.unauthorized, "invalid_signature", "a vault call is device-signed and names its user in \(Self.userHeader)")
        }
        return try await authentication.deviceSigned(userGUID: userGUID, signed, now: services.now).id
    }

    private static func isTerminated(_ status: LedgerVaultStatus) -> Bool {
        status.state == LedgerVaultStatus.terminated || status.desiredState == LedgerVaultStatus.terminated
    }

    /// The backend's refusals as wire errors; anything else it throws is 503 (its detail is not shown).
    private static func call<T>(_ body: () async throws -> T) async throws(WireError) -> T {
        do {
            return try await body()
        } catch LedgerVaultLifecycleError.vaultNotFound {
            throw notFound
        } catch LedgerVaultLifecycleError.vaultTerminated {
            throw terminated
        } catch {
            throw unavailable
        }
    }

    /// `{state, desired_state, progress, host?, updated_at, identity_public_key}` (seconds since 1970, base64url).
    static func json(_ status: LedgerVaultStatus) -> JSONObject {
        var object: JSONObject = [
            "state": .string(status.state), "desired_state": .string(status.desiredState),
            "progress": .integer(Int64(min(max(status.progress, 0), 100))),
            "updated_at": .integer(seconds(status.updatedAt)),
            "identity_public_key": .string(Base64URL.encode(status.identityPublicKey)),
        ]
        if let host = status.host { object["host"] = .string(host) }
        return object
    }

    /// Whole seconds since 1970; an impossible date (not finite, beyond ±10¹⁵ s) is 0 rather than a trap.
    private static func seconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970.rounded(.down)
        return value.isFinite && abs(value) < 1e15 ? Int64(value) : 0
    }
}
