import Foundation
import NATSClient
import TesseraCore

/// An operator, its system account and an application account, minted with our own JWT code, as a server in
/// operator mode needs them (the server trusts the operator JWT; the accounts are preloaded into its resolver).
struct OperatorFixture: Sendable {
    let operatorKey: NKeyPair
    let systemAccount: NKeyPair
    let appAccount: NKeyPair
    let operatorJWT: String
    let systemAccountJWT: String
    let appAccountJWT: String
    let clock = SystemClock()

    init() throws {
        let random = SystemRandomSource()
        operatorKey = try NKeyPair(type: .operator, random: random)
        systemAccount = try NKeyPair(type: .account, random: random)
        appAccount = try NKeyPair(type: .account, random: random)
        operatorJWT = try OperatorClaims(
            operator: operatorKey.publicKeyString, name: "tessera-test-operator",
            systemAccount: systemAccount.publicKeyString
        ).encode(signedBy: operatorKey, clock: clock)
        systemAccountJWT = try AccountClaims(account: systemAccount.publicKeyString, name: "SYS")
            .encode(signedBy: operatorKey, clock: clock)
        appAccountJWT = try AccountClaims(account: appAccount.publicKeyString, name: "APP")
            .encode(signedBy: operatorKey, clock: clock)
    }

    /// A new user of `account` (the app account by default) with the given permissions.
    func user(
        of account: NKeyPair? = nil, name: String = "user", publish: NATSPermission = .init(),
        subscribe: NATSPermission = .init(), expires: Date? = nil
    ) throws -> NATSCredentials {
        let account = account ?? appAccount
        let user = try NKeyPair(type: .user, random: SystemRandomSource())
        let jwt = try UserClaims(
            user: user.publicKeyString, name: name, publish: publish, subscribe: subscribe, expires: expires
        ).encode(signedBy: account, clock: clock)
        return try NATSCredentials(jwt: jwt, userKey: user)
    }

    var systemUser: NATSCredentials { get throws { try user(of: systemAccount, name: "sys") } }
}
