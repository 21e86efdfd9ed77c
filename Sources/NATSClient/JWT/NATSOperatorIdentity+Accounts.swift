import Crypto
import Foundation
import TesseraCore

/// The per-user account every service of the deployment agrees on (the ledger creates it, the vault hosts act in it)
/// without sharing any state but the operator seed.
extension NATSOperatorIdentity {
    /// The account key of `userGUID`: an Ed25519 seed derived with HKDF-SHA256 from the operator seed (its encoded
    /// form as input key material, salt `tessera-ledger-nats-account-v1`, the user_guid as info). The same user
    /// always gets the same account, so a retried enrollment or another vault host re-creates it exactly.
    public func accountKey(userGUID: String) throws(NATSError) -> NKeyPair {
        guard let seed = operatorKey.seedString else { throw .invalidPrefix(expected: "operator seed") }
        let raw = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(seed.utf8)), salt: Data("tessera-ledger-nats-account-v1".utf8),
            info: Data(userGUID.utf8), outputByteCount: 32)
        return try NKeyPair(type: .account, rawSeed: raw.withUnsafeBytes { Data($0) })
    }

    /// The account JWT of `userGUID` (name `vault-<userGUID>`), signed by the operator with `iat` from `clock`, with
    /// `revocations` (user public nkey → unix seconds; see `AccountClaims.revokes(user:issuedAt:)`). Pushing it
    /// (`pushAccountJWT`) replaces the account's previous JWT, so it must list every revocation still wanted.
    public func accountJWT(
        userGUID: String, revocations: [String: Int64] = [:], clock: some TesseraClock
    ) throws(NATSError) -> String {
        let account = try accountKey(userGUID: userGUID)
        return try AccountClaims(account: account.publicKeyString, name: "vault-" + userGUID, revocations: revocations)
            .encode(signedBy: operatorKey, clock: clock)
    }
}

extension NATSOperatorIdentity {
    /// Pushes `accountJWT` to the full resolver of the server (or cluster) at `urls` as the operator's system user
    /// (`nsc push`): one short-lived connection.
    /// Connects to `urls` as the system user and closes again: whether the bus answers and trusts this operator (a
    /// ledger's readiness).
    public func probe(_ urls: [String], random: some RandomSource, clock: some TesseraClock) async throws {
        var options = try NATSClientOptions(urls: urls, name: "tessera-probe", authentication: .credentials(try systemUser(random: random, clock: clock)))
        options.maxReconnectAttempts = 0
        let client = NATSClient(options: options)
        do {
            try await client.connect()
            try await client.flush(timeout: .seconds(2))
            await client.close()
        } catch {
            await client.close()
            throw error
        }
    }

    public func push(accountJWT: String, to urls: [String], random: some RandomSource, clock: some TesseraClock) async throws {
        var options = try NATSClientOptions(urls: urls, name: "tessera-account-push", authentication: .credentials(try systemUser(random: random, clock: clock)))
        options.maxReconnectAttempts = 2
        let client = NATSClient(options: options)
        do {
            try await client.connect()
            _ = try await client.pushAccountJWT(accountJWT)
            await client.close()
        } catch {
            await client.close()
            throw error
        }
    }
}
