import Crypto
import Foundation
import NATSClient
import TesseraCore

/// Mints a member's NATS identity at finalize: an account of the ledger's operator (its key derived from the
/// operator seed and the user, so a retry re-creates the same account), pushed to the server's full resolver the way
/// `nsc push` does, and short-lived bootstrap user credentials that may only publish
/// `OwnerSpace.{guid}.forVault.app.bootstrap` and subscribe `OwnerSpace.{guid}.forApp.app.bootstrap.>` (guid = the
/// user_guid without dashes).
public struct NATSProvisioner: LedgerNATSProvisioner {
    public let identity: NATSOperatorIdentity
    public let servers: [String]
    public let bootstrapLifetime: TimeInterval
    let clock: ExistentialClock
    let random: ExistentialRandom

    public init(
        identity: NATSOperatorIdentity, servers: [String], bootstrapLifetime: TimeInterval = 3600,
        clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()
    ) {
        self.identity = identity
        self.servers = servers
        self.bootstrapLifetime = bootstrapLifetime
        self.clock = ExistentialClock(base: clock)
        self.random = ExistentialRandom(base: random)
    }

    public static func ownerSpace(userGUID: String) -> String { "OwnerSpace." + userGUID.replacingOccurrences(of: "-", with: "") }

    public func provision(userGUID: String, now: Date) async throws -> [String: String] {
        let account = try accountKey(userGUID: userGUID)
        let accountJWT = try AccountClaims(account: account.publicKeyString, name: "vault-" + userGUID)
            .encode(signedBy: identity.operatorKey, clock: clock)
        try await push(accountJWT)
        let space = Self.ownerSpace(userGUID: userGUID)
        let user = try NKeyPair(type: .user, random: random)
        let expires = now.addingTimeInterval(bootstrapLifetime)
        let userJWT = try UserClaims(
            user: user.publicKeyString, name: "bootstrap-" + userGUID,
            publish: NATSPermission(allow: [space + ".forVault.app.bootstrap"]),
            subscribe: NATSPermission(allow: [space + ".forApp.app.bootstrap.>"]), expires: expires
        ).encode(signedBy: account, clock: clock)
        let credentials = try NATSCredentials(jwt: userJWT, userKey: user)
        return [
            "nats_url": servers.joined(separator: ","), "account": account.publicKeyString, "owner_space": space,
            "bootstrap_creds": credentials.credsFile, "expires_at": String(Int64(expires.timeIntervalSince1970)),
        ]
    }

    /// HKDF-SHA256 of the operator seed with the user as info: the same account for the same user, no state kept.
    func accountKey(userGUID: String) throws -> NKeyPair {
        guard let seed = identity.operatorKey.seedString else { throw NATSError.invalidKeyLength }
        let raw = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(seed.utf8)), salt: Data("tessera-ledger-nats-account-v1".utf8),
            info: Data(userGUID.utf8), outputByteCount: 32)
        return try raw.withUnsafeBytes { bytes throws(NATSError) in try NKeyPair(type: .account, rawSeed: Data(bytes)) }
    }

    private func push(_ accountJWT: String) async throws {
        var options = try NATSClientOptions(
            urls: servers, name: "tessera-ledger",
            authentication: .credentials(try identity.systemUser(random: random, clock: clock)))
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

/// The NATS module's generic APIs take `some TesseraClock` / `some RandomSource`: these pass injected existentials on.
struct ExistentialClock: TesseraClock {
    let base: any TesseraClock
    func now() -> Date { base.now() }
}

struct ExistentialRandom: RandomSource {
    let base: any RandomSource
    func bytes(_ count: Int) -> Data { base.bytes(count) }
}
