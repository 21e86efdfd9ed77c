import Foundation
import NATSClient
import TesseraCore

/// Mints a member's NATS identity at finalize: an account of the ledger's operator (its key derived from the
/// operator seed and the user by `NATSOperatorIdentity.accountKey(userGUID:)`, so a retry re-creates the same
/// account and the vault hosts derive it too), pushed to the server's full resolver the way
/// `nsc push` does, and short-lived bootstrap user credentials that may only publish
/// `OwnerSpace.{guid}.forVault.app.bootstrap` and subscribe `OwnerSpace.{guid}.forApp.app.bootstrap.>` (guid = the
/// user_guid without dashes).
public struct NATSProvisioner: LedgerNATSProvisioner {
    public let identity: NATSOperatorIdentity
    public let servers: [String]
    public let bootstrapLifetime: TimeInterval
    let clock: AnyTesseraClock
    let random: AnyRandomSource
    let publishAccount: @Sendable (String) async throws -> Void

    /// `publishAccount` installs an account JWT on the bus: by default a push to `servers` as the operator's system
    /// user; the in-process bus of `tessera demo` installs it directly.
    public init(
        identity: NATSOperatorIdentity, servers: [String], bootstrapLifetime: TimeInterval = 3600,
        clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource(),
        publishAccount: (@Sendable (String) async throws -> Void)? = nil
    ) {
        self.identity = identity
        self.servers = servers
        self.bootstrapLifetime = bootstrapLifetime
        let clock = AnyTesseraClock(clock), random = AnyRandomSource(random)
        self.clock = clock
        self.random = random
        self.publishAccount = publishAccount ?? { jwt in
            try await identity.push(accountJWT: jwt, to: servers, random: random, clock: clock)
        }
    }

    /// The bus answers the operator's system user.
    public func readiness() async -> String? {
        do {
            try await identity.probe(servers, random: random, clock: clock)
            return nil
        } catch {
            return "NATS does not answer"
        }
    }

    public static func ownerSpace(userGUID: String) -> String { "OwnerSpace." + userGUID.replacingOccurrences(of: "-", with: "") }

    public func provision(userGUID: String, now: Date) async throws -> [String: String] {
        let account = try identity.accountKey(userGUID: userGUID)
        try await publishAccount(try identity.accountJWT(userGUID: userGUID, clock: clock))
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
}
