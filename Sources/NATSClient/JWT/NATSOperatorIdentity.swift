import Foundation
import TesseraCore

/// An operator and its system account, kept as two seed files in a directory (0700, files 0600): what a service that
/// creates NATS accounts (the Ledger) holds, and what a nats-server in operator mode must trust (`serverConfiguration`).
public struct NATSOperatorIdentity: Sendable {
    public static let operatorSeedFile = "nats-operator.nk"
    public static let systemAccountSeedFile = "nats-system-account.nk"

    public let operatorKey: NKeyPair
    public let systemAccount: NKeyPair
    public let operatorJWT: String
    public let systemAccountJWT: String

    public init(operatorKey: NKeyPair, systemAccount: NKeyPair, name: String, clock: some TesseraClock) throws(NATSError) {
        self.operatorKey = operatorKey
        self.systemAccount = systemAccount
        operatorJWT = try OperatorClaims(operator: operatorKey.publicKeyString, name: name, systemAccount: systemAccount.publicKeyString)
            .encode(signedBy: operatorKey, clock: clock)
        systemAccountJWT = try AccountClaims(account: systemAccount.publicKeyString, name: "SYS").encode(signedBy: operatorKey, clock: clock)
    }

    /// The identity in `directory`, created with fresh keys the first time.
    public static func loadOrCreate(
        in directory: URL, name: String, random: some RandomSource, clock: some TesseraClock
    ) throws -> NATSOperatorIdentity {
        let fm = FileManager.default
        try fm.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        func key(_ file: String, _ type: NKeyType) throws -> NKeyPair {
            let url = directory.appendingPathComponent(file)
            if let text = try? String(contentsOf: url, encoding: .utf8) {
                return try NKeyPair(seed: text.trimmingCharacters(in: .whitespacesAndNewlines), expected: type)
            }
            let pair = try NKeyPair(type: type, random: random)
            guard let seed = pair.seedString, fm.createFile(atPath: url.path, contents: Data((seed + "\n").utf8), attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
            return pair
        }
        return try NATSOperatorIdentity(
            operatorKey: try key(operatorSeedFile, .operator), systemAccount: try key(systemAccountSeedFile, .account), name: name,
            clock: clock)
    }

    /// A user of the system account (for `pushAccountJWT`), valid for `lifetime`.
    public func systemUser(random: some RandomSource, clock: some TesseraClock, lifetime: TimeInterval = 3600) throws(NATSError) -> NATSCredentials {
        let user = try NKeyPair(type: .user, random: random)
        let jwt = try UserClaims(user: user.publicKeyString, name: "sys", expires: clock.now().addingTimeInterval(lifetime))
            .encode(signedBy: systemAccount, clock: clock)
        return try NATSCredentials(jwt: jwt, userKey: user)
    }

    /// A nats-server configuration trusting this operator: `listen`, the operator JWT inline, the system account, and
    /// a full resolver in `resolverDirectory` preloaded with the system account (accounts arrive by push).
    public func serverConfiguration(listen: String, resolverDirectory: String) -> String {
        """
        listen: "\(listen)"
        operator: "\(operatorJWT)"
        system_account: "\(systemAccount.publicKeyString)"
        resolver: {
          type: full
          dir: "\(resolverDirectory)"
          allow_delete: false
          interval: "2m"
          timeout: "1.9s"
        }
        resolver_preload: {
          \(systemAccount.publicKeyString): "\(systemAccountJWT)"
        }

        """
    }
}
