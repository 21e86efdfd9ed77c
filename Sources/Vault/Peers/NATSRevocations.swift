import Foundation

/// Revoking NATS users this vault issued (connection credentials): recorded in `vt_revocations`, then the user's
/// account JWT is pushed again with every revocation recorded so far (a push replaces the previous JWT). nats-server
/// then closes their connections and refuses them. Recorded first, so a push that fails is made good by the next.
struct NATSRevocations: Sendable {
    let connections: VaultConnections
    let nats: VaultNATSIdentity

    func revoke(_ users: [String], now: Date) async throws {
        guard !users.isEmpty else { return }
        try await connections.addRevocations(users, at: Int64(now.timeIntervalSince1970))
        let jwt = try nats.accountJWT(revocations: try await connections.revocations())
        try await nats.bus.publishAccount(jwt)
    }
}
