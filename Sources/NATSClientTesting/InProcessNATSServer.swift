import Foundation
import NATSClient
import TesseraCore

/// An embedded NATS bus for `tessera demo`, applying the rules of nats-server in operator mode so that vault code
/// cannot tell it from the real one: accounts come from operator-signed account JWTs (`updateAccount(jwt:)`, the
/// counterpart of `pushAccountJWT`), users authenticate with their credentials (user JWT checks and proof of the
/// seed), each account has its own subject space, and publish/subscribe permissions, queue groups, headers, reply
/// subjects and `max_payload` behave as on the server.
///
/// Differences, all documented where they apply: a forbidden publish throws from `publish` (nats-server reports it
/// asynchronously, so `NATSClient` throws it from the next `flush`); a revoked connection's subscriptions end with
/// `authorizationViolation` (a `NATSClient` gets the error as an event, then its subscriptions end when reconnecting
/// fails); `flush` returns at once. Outside this double's scope (the tests that need them run the real nats-server):
/// operator signing keys, account and user limits other than the payload size, imports and exports, JetStream, and
/// response permissions (`resp`: a user JWT with it is refused, rather than given different permissions than the
/// server would give it).
public final class InProcessNATSServer: NATSConnector {
    public let operatorPublicKey: String
    /// nats-server's default `max_payload` (1 MiB): headers and payload together.
    public let maxPayload = 1024 * 1024

    let clock: any TesseraClock
    let random: any RandomSource
    let state = LockedState()

    /// A bus trusting the operator `operatorPublicKey` (`O…`). `clock` checks JWT validity; `random` draws the
    /// authentication nonces and picks a queue group's member.
    public init(
        operatorPublicKey: String, clock: any TesseraClock = SystemClock(), random: any RandomSource = SystemRandomSource()
    ) throws(NATSError) {
        _ = try NKeyPair(publicKey: operatorPublicKey, expected: .operator)
        self.operatorPublicKey = operatorPublicKey
        self.clock = clock
        self.random = random
    }

    /// Installs or replaces an account from its JWT, as a push to nats-server's full resolver does. The JWT must be
    /// signed by the operator (`claimsUpdateRejected` otherwise, like the resolver's refusal). The newest JWT by `iat`
    /// is kept: an older one is ignored (nats-server's resolvers keep the newer when they synchronise). The new
    /// revocations apply at once: live connections of revoked users end with `authorizationViolation("User
    /// Authentication Revoked")`, and those whose account signing key was removed with `Authorization Violation`.
    public func updateAccount(jwt: String) throws(NATSError) {
        let account: NATSJWT<AccountClaims>
        do {
            account = try NATSJWT<AccountClaims>(jwt)
        } catch {
            throw .claimsUpdateRejected(code: 500, description: "jwt validation failed: \(error)")
        }
        guard account.claims.iss == operatorPublicKey else {
            throw .claimsUpdateRejected(code: 500, description: "jwt validation failed: not signed by the trusted operator")
        }
        let evicted = state.withLock { state -> [(LiveSubscription, NATSError)] in
            let key = account.claims.sub
            if let current = state.accounts[key], current.jwt.claims.iat > account.claims.iat { return [] }
            var entry = state.accounts.removeValue(forKey: key) ?? InProcessAccount(jwt: account)
            entry.jwt = account
            let signingKeys = Set(account.claims.nats.signing_keys ?? [])
            var evicted: [(LiveSubscription, NATSError)] = []
            for (id, connection) in entry.connections {
                let reason: NATSError
                if account.claims.revokes(user: connection.user, issuedAt: connection.issuedAt) {
                    reason = .authorizationViolation("User Authentication Revoked")
                } else if let signingKey = connection.signingKey, !signingKeys.contains(signingKey) {
                    reason = .authorizationViolation("Authorization Violation")
                } else {
                    continue
                }
                evicted += entry.removeConnection(id).map { ($0, reason) }
            }
            state.accounts[key] = entry
            return evicted
        }
        for (subscription, reason) in evicted { subscription.continuation.finish(throwing: reason) }
    }

    /// Authenticates `credentials` the way nats-server does on CONNECT (see `admit`) and opens a connection.
    /// Every refusal is `authorizationViolation("Authorization Violation")`, the server's words.
    public func connect(credentials: NATSCredentials, name: String) async throws -> any NATSConnection {
        try open(credentials: credentials, name: name)
    }

    /// `connect` with its concrete type.
    public func open(credentials: NATSCredentials, name: String) throws(NATSError) -> InProcessNATSConnection {
        let admission = try admit(credentials)
        return InProcessNATSConnection(
            server: self, id: admission.connection, account: admission.account, user: admission.user, name: name,
            permissions: admission.permissions)
    }
}
