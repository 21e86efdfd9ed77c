import Foundation
import NATSClient
import TesseraCore
import NATSClientTesting

/// Which bus a scenario runs on: the embedded `InProcessNATSServer` or a real nats-server in operator mode, both
/// trusting the same operator, so that one scenario checks that they apply the same rules.
enum BusKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case inProcess
    case natsServer
    var description: String { rawValue }
}

/// A running bus with its operator: accounts are pushed to it, users connect through `connector`.
final class BusUnderTest: Sendable {
    let kind: BusKind
    let fixture: OperatorFixture
    let connector: any NATSConnector
    private let server: NATSServerProcess?
    private let inProcess: InProcessNATSServer?
    private let system: NATSClient?

    init(_ kind: BusKind) async throws {
        self.kind = kind
        fixture = try OperatorFixture()
        switch kind {
        case .inProcess:
            let bus = try InProcessNATSServer(operatorPublicKey: fixture.operatorKey.publicKeyString, clock: SystemClock())
            inProcess = bus
            server = nil
            system = nil
            connector = bus
        case .natsServer:
            let server = try NATSServerProcess(fixture: fixture)
            self.server = server
            inProcess = nil
            system = try await connectedClient([server.url], try fixture.systemUser)
            // A revoked connection is closed by the server; one refused reconnect, then the client closes.
            connector = NATSServerConnector(urls: [server.url]) {
                $0.maxReconnectAttempts = 1
                $0.reconnectWait = .milliseconds(20)
            }
        }
    }

    /// Installs an account JWT: `pushAccountJWT` as the system user (`nsc push`), or `updateAccount(jwt:)`.
    func push(_ accountJWT: String) async throws {
        if let inProcess { try inProcess.updateAccount(jwt: accountJWT) }
        if let system { _ = try await system.pushAccountJWT(accountJWT) }
    }

    /// A new account of the fixture's operator, pushed to the bus.
    func newAccount(
        name: String = "account", signingKeys: [String]? = nil, defaultPermissions: AccountClaims.DefaultPermissions = .init()
    ) async throws -> NKeyPair {
        let account = try NKeyPair(type: .account, random: SystemRandomSource())
        try await push(
            try AccountClaims(
                account: account.publicKeyString, name: name, signingKeys: signingKeys, defaultPermissions: defaultPermissions
            ).encode(signedBy: fixture.operatorKey, clock: SystemClock()))
        return account
    }

    func connect(_ credentials: NATSCredentials, name: String = "test") async throws -> any NATSConnection {
        try await connector.connect(credentials: credentials, name: name)
    }

    func shutdown() async {
        await system?.close()
        server?.stop()
    }
}

/// Credentials of `userKey` (a new key by default) with a user JWT signed by `signer` at `issuedAt`.
func userCredentials(
    signedBy signer: NKeyPair, userKey: NKeyPair? = nil, issuerAccount: String? = nil, publish: NATSPermission = .init(),
    subscribe: NATSPermission = .init(), issuedAt: Date = Date(), expires: Date? = nil
) throws -> NATSCredentials {
    let user = try userKey ?? NKeyPair(type: .user, random: SystemRandomSource())
    let jwt = try UserClaims(
        user: user.publicKeyString, name: "user", publish: publish, subscribe: subscribe, issuerAccount: issuerAccount,
        expires: expires
    ).encode(signedBy: signer, clock: FixedClock(issuedAt))
    return try NATSCredentials(jwt: jwt, userKey: user)
}
