import Foundation
import ITWalletProtocol
import SQLKit
import ServiceSupport
import TesseraJOSE

/// Entry points for Benchmarks/WalletProviderBenchmarks only (`@_spi(Benchmarks) import WalletProvider`).
///
/// A real device sample carries its challenge inside the attestation, so it can never match a nonce this server
/// issued. These calls let a benchmark store that challenge as if `GET /nonce` had issued it, then run the server's
/// own registration path on the sample. None of them is reachable over HTTP, and none skips a check.
@_spi(Benchmarks)
extension WalletProviderServer {
    /// An account made by the real sign-up (Argon2id with the server's password parameters) and a session opened by
    /// the real login (password and TOTP at the configured clock): its id and its Bearer token.
    public func benchmarkAccount(email: String, password: String) async throws -> (accountID: String, sessionToken: String) {
        let created = try await services.accounts.signUp(email: email, password: password)
        let code = created.totp.code(at: services.configuration.clock.now())
        let session = try await services.accounts.logIn(email: email, password: password, code: code)
        return (created.accountID, session.token)
    }

    /// Stores `challenge` as an issued nonce, valid for `nonceLifetime` from the configured clock (the row
    /// `GET /nonce` inserts).
    public func benchmarkSeedChallenge(_ challenge: String) async throws {
        let configuration = services.configuration
        try await services.nonceStore.insert(challenge, expiresAt: configuration.clock.now().addingTimeInterval(configuration.nonceLifetime))
    }

    /// What `POST /wallet-instance` does once the account is authenticated: the JSON body parsed as the route parses
    /// it, then `RegistrationService.register` (challenge consumed, key attestation verified, posture checked,
    /// instance inserted). Throws the `WireError` the route would answer with.
    public func benchmarkRegister(body: Data, accountID: String) async throws {
        guard body.count <= 64 * 1024, let json = (try? JSONValue.parse(body))?.objectValue else {
            throw WireError(.badRequest, "bad_request", "the body must be a JSON object (application/json)")
        }
        try await services.registration.register(RegistrationService.Request(json: json), accountID: accountID)
    }

    /// What `POST /wallet-instance-attestation` (1.5) does with a `wia-request+jwt` once the body is read (the raw
    /// `application/jwt` form): `InstanceAttestationService.walletInstanceAttestation` (the request parsed and
    /// proven, the nonce consumed, the instance claimed, its status list entry allocated or reused, the WIA signed
    /// with the x5c identity). Returns the WIA; throws the `WireError` the route would answer with.
    public func benchmarkWalletInstanceAttestation(assertion: String) async throws -> String {
        try await services.attestations.service.walletInstanceAttestation(assertion: assertion, version: .v1_5)
    }

    /// Deletes the instance registered with `hardwareKeyTag` (an App Attest sample's tag is its fixed keyId, so it
    /// can register again only after this). True when a row was deleted.
    @discardableResult
    public func benchmarkRemoveInstance(hardwareKeyTag: String) async throws -> Bool {
        try await services.instances.db.run { sql in
            try await sql.delete(from: "wp_wallet_instances").where("hardware_key_tag", .equal, hardwareKeyTag)
                .returning("id").first() != nil
        }
    }
}
