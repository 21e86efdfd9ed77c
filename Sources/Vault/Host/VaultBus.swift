import Foundation
import NATSClient
import TesseraCore

/// The bus the vaults live on: a real nats-server (cluster) in operator mode, or any other `NATSConnector` with the
/// same rules (the in-process bus of NATSClientTesting for the demo and the tests: `VaultBus(connector:endpoint:…)`). Either way the host connects per user with credentials it signs with the user's account key (derived from
/// the operator seed it shares with the ledger), and publishes account JWTs to revoke NATS identities.
public struct VaultBus: Sendable {
    public let connector: any NATSConnector
    /// What the app is told to connect to (`nats_endpoint`).
    public let endpoint: String
    public let identity: NATSOperatorIdentity
    /// Publishes an account JWT (signed by the operator) to the bus's resolver.
    public let publishAccount: @Sendable (String) async throws -> Void

    public init(
        connector: any NATSConnector, endpoint: String, identity: NATSOperatorIdentity,
        publishAccount: @escaping @Sendable (String) async throws -> Void
    ) {
        self.connector = connector
        self.endpoint = endpoint
        self.identity = identity
        self.publishAccount = publishAccount
    }

    /// A nats-server (or cluster) at `urls`; account JWTs are pushed with the operator's system user.
    public static func nats(urls: [String], identity: NATSOperatorIdentity, clock: any TesseraClock, random: any RandomSource) -> VaultBus {
        let connector = NATSServerConnector(urls: urls)
        return VaultBus(connector: connector, endpoint: urls.joined(separator: ","), identity: identity) { jwt in
            try await identity.push(accountJWT: jwt, to: urls, random: AnyRandomSource(random), clock: AnyTesseraClock(clock))
        }
    }
}
